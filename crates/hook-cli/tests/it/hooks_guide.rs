//! `docs/hooks-guide.md` is true: its files are written as the guide shows them, and every command of its ```sh
//! blocks is run, in order, exactly as written (with `hook` on `PATH` being this build, isolated from the machine's
//! config home, policy file and state), with the exit code and output the guide describes.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Env, HOOK, repo_root};

/// The guide's code blocks: (language, lines).
fn blocks(guide: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut parts = guide.split("```");
    parts.next();
    while let (Some(block), _) = (parts.next(), parts.next()) {
        let (lang, body) = block.split_once('\n').unwrap_or((block, ""));
        out.push((lang.trim().to_owned(), body.lines().map(str::to_owned).collect()));
    }
    out
}

/// The file a block shows, when its first comment (after a shebang) is exactly `# <path>`.
fn file_of(lines: &[String]) -> Option<String> {
    let first = lines.iter().find(|l| !l.starts_with("#!"))?;
    let path = first.strip_prefix("# ")?;
    (!path.contains(' ') && path.contains('.')).then(|| path.to_owned())
}

/// `hook` as the guide's reader has it: this build, with the managed file kept out of the machine's /etc.
fn install_wrapper(env: &Env) -> std::path::PathBuf {
    let bin = env.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("hook");
    let managed = env.home.join("managed.yaml");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{HOOK}' --managed-file '{}' \"$@\"\n", managed.display()))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn sh(env: &Env, bin: &Path, command: &str) -> (i32, String, String) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output = Command::new("sh")
        .args(["-c", command])
        .current_dir(&env.ws)
        .env("PATH", path)
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join("xdg-config"))
        .env("XDG_STATE_HOME", env.home.join("state"))
        .env_remove("HOOK_BRIDGE_DEPTH")
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// What each command of the guide must do: its exit code and a piece of its stdout.
const EXPECTED: &[(&str, i32, &str)] = &[
    ("chmod +x scripts/no-force-push.sh", 0, ""),
    ("hook validate", 0, ""),
    ("hook preview pre_tool --tool shell", 0, "no-force-push"),
    (
        r#"hook run pre_tool --tool shell --input '{"command":"git push --force origin main"}' --trust-workspace"#,
        2,
        "verdict  deny",
    ),
    ("hook trust --all --yes", 0, "no-force-push"),
    ("hook test checks.yaml --trust-workspace", 0, "2 passed, 0 failed"),
    (r#"hook run pre_tool --tool shell --input '{"command":"git push --force"}' --trust-workspace"#, 2, "deny"),
    ("hook receipts tail -n 5", 0, "no-force-push"),
    ("hook receipts verify", 0, ""),
    ("hook explain pre_tool --tool Bash", 0, "`Bash` reads as the canonical tool `shell`"),
    ("hook explain PreToolUse --tool run_shell_command --agent gemini", 0, "Gemini CLI calls it run_shell_command"),
    (r#"hook explain post_tool --tool shell --input '{"command":"make"}'"#, 0, "post_tool · tool shell"),
    ("hook install --agent claude --yes", 0, ""),
    ("hook uninstall --agent claude", 0, ""),
    ("hook import --from claude", 0, "protocol: claude"),
    ("hook import --from claude --write", 0, ""),
];

/// An agent's own hook, for the guide's last section to move and import.
const CLAUDE_SETTINGS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo checked >&2"}]}
    ]
  }
}
"#;

#[test]
fn every_command_of_the_hooks_guide_does_what_it_says() {
    let guide = std::fs::read_to_string(repo_root().join("docs/hooks-guide.md")).unwrap();
    let env = Env::new("empty");
    let bin = install_wrapper(&env);

    let mut commands = Vec::new();
    for (lang, lines) in blocks(&guide) {
        match file_of(&lines) {
            Some(path) if !path.starts_with(".github") => env.write(&path, &(lines.join("\n") + "\n")),
            Some(_) => {}
            None if lang == "sh" => {
                commands.extend(lines.iter().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).cloned())
            }
            None => {}
        }
    }
    let listed: Vec<&str> = EXPECTED.iter().map(|(c, _, _)| *c).collect();
    assert_eq!(commands, listed, "the guide's commands, in order, are the ones this test checks");

    for (command, code, needle) in EXPECTED {
        if command.starts_with("hook install") {
            // The guide's last section is about an agent that already has hooks of its own.
            env.write(".claude/settings.json", CLAUDE_SETTINGS);
        }
        let (got, stdout, stderr) = sh(&env, &bin, command);
        assert_eq!(got, *code, "`{command}` exits {code}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        assert!(stdout.contains(needle), "`{command}` prints `{needle}`\nstdout:\n{stdout}\nstderr:\n{stderr}");
        if command.starts_with("hook install") {
            let settings = std::fs::read_to_string(env.ws.join(".claude/settings.json")).unwrap();
            assert!(settings.contains("hook bridge --protocol claude"), "{settings}");
            let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
            assert!(native.contains("echo checked >&2"), "the agent's hook moved: {native}");
        }
        if command.starts_with("hook uninstall") {
            let settings = std::fs::read_to_string(env.ws.join(".claude/settings.json")).unwrap();
            assert_eq!(settings, CLAUDE_SETTINGS, "uninstall puts the agent's file back");
        }
    }
    let native = std::fs::read_to_string(env.ws.join(".hooks/hooks.yaml")).unwrap();
    assert!(native.contains("protocol: claude"), "import --write added the agent's hook: {native}");
}
