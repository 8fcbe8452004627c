//! Nothing `hook` prints can act on a terminal or reorder what is read: a workspace path holding `ESC ] 0;… BEL`,
//! `ESC [2J` and U+202E, and a declaration holding U+202E and U+2066, are shown escaped by every subcommand, in
//! text and in JSON.

use crate::common;

use common::Env;

const EVIL_DIR: &str = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}gpj.exe";

fn raw(text: &str) -> Vec<char> {
    text.chars().filter(|&c| (c.is_control() && c != '\n') || hook_types::needs_escape(c)).collect()
}

#[test]
fn escape_codes_in_a_workspace_path_and_a_declaration_reached_the_terminal() {
    let env = Env::new("gates");
    let ws = env.ws.join(EVIL_DIR);
    std::fs::create_dir_all(ws.join(".hooks")).unwrap();
    std::fs::write(
        ws.join(".hooks/hooks.yaml"),
        "- {id: shown, on: pre_tool, kind: command, shell: \"echo \\u202eevil\\u2066 \\e[2J\"}\n",
    )
    .unwrap();
    let hook = |args: &[&str]| {
        let mut command = env.command_without_workspace(&[]);
        command.arg("--workspace").arg(&ws).args(args);
        env.finish(command)
    };
    for args in [
        &["trust", "--all", "--yes"][..],
        &["trust", "--list"],
        &["inspect"],
        &["trust", "--list", "--json"],
        &["inspect", "--json"],
    ] {
        let out = hook(args);
        assert_eq!(raw(&out.stdout), [], "hook {args:?} printed raw controls:\n{}", out.stdout);
        assert_eq!(raw(&out.stderr), [], "hook {args:?} printed raw controls on stderr:\n{}", out.stderr);
        let shown = format!("{}{}", out.stdout, out.stderr);
        let escaped = shown.contains(r"\x1b]0;pwned\x07\x1b[2J\u{202e}gpj.exe")
            || shown.contains(r"\u001b]0;pwned\u0007\u001b[2J\u202egpj.exe");
        assert!(escaped, "hook {args:?} does not show the path escaped:\n{shown}");
    }
    for args in [
        &["trust"][..],
        &["validate"],
        &["preview", "pre_tool", "--tool", "shell"],
        &["explain", "pre_tool", "--tool", "shell\u{1b}[2J"],
        &["explain", "pre_tool", "--tool", "shell", "--json"],
        &["run", "pre_tool", "--tool", "shell", "--no-receipts"],
        &["run", "pre_tool", "--tool", "shell", "--no-receipts", "--json"],
        &["run", "pre_tool", "--tool", "shell"],
        &["receipts", "tail"],
        &["receipts", "verify"],
    ] {
        let out = hook(args);
        assert_eq!(raw(&format!("{}{}", out.stdout, out.stderr)), [], "hook {args:?}: {out:#?}");
    }
    let out = hook(&["inspect"]);
    assert!(out.stdout.contains(r"echo \u{202e}evil\u{2066} \x1b[2J"), "{}", out.stdout);
}
