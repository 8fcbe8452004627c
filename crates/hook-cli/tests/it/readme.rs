//! The README's "Try it from a checkout" command is the engine's main job: run it as written (with the built binary
//! in place of `cargo run`) from the repository root and check that it shows a denied call with its trace. It shows
//! cargo's build progress (no `-q`): on a cold machine the build takes minutes, and a silent one looks hung.

use crate::common;

use std::process::Command;

use common::{HOOK, repo_root};

/// The commands of the first ```sh block of the README's "Try it from a checkout", comments and blank lines left
/// out.
fn first_sh_block_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let section = readme.split("\n## Try it from a checkout\n").nth(1).expect("the README has a section to try it");
    let block = section.split("```sh\n").nth(1).expect("the section has a ```sh block");
    let block = block.split("```").next().unwrap();
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split(" #").next().unwrap().trim().to_owned())
        .collect()
}

#[test]
fn the_readme_main_command_shows_a_denied_call_with_its_trace() {
    let commands = first_sh_block_commands();
    assert_eq!(commands.get(1).map(String::as_str), Some("cargo test --workspace"), "{commands:#?}");
    let main = &commands[0];
    let rest = main.strip_prefix("cargo run -p hook-cli --").expect("the first command runs the hook CLI, not quietly");
    assert!(rest.contains("--workspace examples/demo"), "{main}");
    assert!(rest.contains("--trust-workspace"), "trust is explicit: {main}");

    // Isolated from the real config home, policy file and state: the global flags go after the subcommand too.
    let home = tempfile::tempdir().unwrap();
    let isolate = format!(" --config-home '{0}/cfg' --managed-file '{0}/managed.yaml'", home.path().display());
    let script = format!("'{HOOK}'{rest}{isolate}");
    let output = Command::new("sh")
        .args(["-c", &script])
        .current_dir(repo_root())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("xdg"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "deny exits 2\n{stdout}\n{stderr}");
    assert!(stdout.contains("  blocked    demo.no-destructive-shell\n"), "{stdout}");
    assert!(stdout.contains("feedback refusing a destructive shell command"), "{stdout}");
    assert!(stdout.contains("\nverdict  deny\n"), "{stdout}");
    assert!(stdout.contains("reason   refusing a destructive shell command (rm -rf, mkfs, dd)\n"), "{stdout}");
    assert!(stderr.contains("--trust-workspace: trusting"), "the in-memory trust is announced: {stderr}");
    assert!(!home.path().join("cfg/trusted.json").exists(), "--trust-workspace never writes the trust store");
    assert!(!home.path().join("state").exists(), "--no-receipts writes no receipt");
}

/// The demo's approver, through the real `hook`: a line of read-only commands is approved; a line that also runs
/// anything else is not, and the output names the command that broke the approval.
#[test]
fn the_demo_approver_approves_ls_and_nothing_that_runs_more() {
    let home = tempfile::tempdir().unwrap();
    let run = |line: &str| {
        let input = serde_json::json!({ "command": line }).to_string();
        let output = Command::new(HOOK)
            .args(["--workspace", "examples/demo", "--json", "run", "permission_request", "--tool", "Bash"])
            .args(["--input", &input, "--trust-workspace", "--no-receipts"])
            .args(["--config-home", &format!("{}/cfg", home.path().display())])
            .args(["--managed-file", &format!("{}/managed.yaml", home.path().display())])
            .current_dir(repo_root())
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", home.path().join("state"))
            .output()
            .unwrap();
        let result: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{line}: {e}\n{}", String::from_utf8_lossy(&output.stderr)));
        result
    };
    for line in ["ls", "ls -la | grep src && git status 2>/dev/null"] {
        let result = run(line);
        assert_eq!(result["verdict"], "allow", "{line}: {result:#}");
    }
    for (line, culprit) in [
        ("ls && rm -rf ~", "`rm -rf ~`"),
        ("ls; curl -fsSL https://example.invalid/x.sh -o x.sh", "`curl"),
        ("ls $(touch owned)", "`touch owned`"),
        ("bash -c 'ls; git push -f'", "`git push -f`"),
        ("ls > listing.txt", "`ls` writes a file"),
        ("ls \"$(cat .env)\" | sh", "`sh` is not in its"),
        ("cat \"$F\"", "cannot be read"),
    ] {
        let result = run(line);
        assert_eq!(result["verdict"], "none", "{line}: the human decides: {result:#}");
        let notices = result["notices"].to_string();
        assert!(notices.contains("demo.read-only-ok") && notices.contains(culprit), "{line}: {notices}");
    }
}

/// `hook explain` says ahead of time that the demo approver's allow would not stand, and why.
#[test]
fn explain_names_the_command_that_breaks_an_approval() {
    let output = Command::new(HOOK)
        .args(["--workspace", "examples/demo", "--color", "never", "explain", "permission_request", "--tool", "Bash"])
        .args(["--input", r#"{"command":"ls && rm -rf ~"}"#])
        .current_dir(repo_root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("its allow would be dropped: `rm -rf ~` is not in its `command: {all: ...}` list"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
