//! Every error a user can cause prints one clear line, `hook: error: …`, naming what and where, and exits 1: no
//! panic, no backtrace, never clap's exit 2 (which means "deny" here).

use crate::common;

use common::{Env, HOOK, Out, assert_one_line_error};

fn check(env: &Env, args: &[&str], needle: &str) {
    assert_one_line_error(&env.hook(args), needle);
}

#[test]
fn a_missing_workspace_is_one_line_naming_it() {
    let env = Env::new("gates");
    let missing = env.home.join("no-such-dir");
    let out = env.finish(env.command_without_workspace(&["--workspace", missing.to_str().unwrap(), "inspect"]));
    assert_one_line_error(&out, "workspace `[HOME]/no-such-dir` (--workspace) cannot be used: No such file");
    // Without --workspace the current directory is the workspace.
    let mut command = env.command_without_workspace(&["inspect", "--json"]);
    command.current_dir(env.ws.join("scripts"));
    assert_eq!(env.finish(command).json()["workspace"], "[WS]/scripts");
}

#[test]
fn a_workspace_that_is_a_file_is_one_line() {
    let env = Env::new("gates");
    let out = env.finish(env.command_without_workspace(&["inspect", "--workspace", "scripts/decide.sh"]));
    assert_one_line_error(&out, "workspace `scripts/decide.sh` (--workspace) is not a directory");
}

#[test]
fn a_config_path_that_is_a_directory_is_one_line() {
    let env = Env::new("gates");
    // The managed file is a directory.
    std::fs::create_dir_all(env.home.join("policy-dir")).unwrap();
    let dir = env.home.join("policy-dir");
    check(
        &env,
        &["validate", "--managed-file", dir.to_str().unwrap()],
        "managed file `[HOME]/policy-dir` (--managed-file) is a directory",
    );
    // The project's hooks.json is a directory: a dispatch refuses; inspect and validate show it as one issue.
    std::fs::create_dir_all(env.ws.join(".hooks/hooks.json")).unwrap();
    check(&env, &["run", "pre_tool"], "project hook file `[WS]/.hooks/hooks.json` is not a regular file");
    // The config home is a regular file.
    let env = Env::new("gates");
    std::fs::create_dir_all(env.config_home().parent().unwrap()).unwrap();
    std::fs::write(env.config_home(), "not a dir").unwrap();
    check(&env, &["inspect"], "config home `[HOME]/xdg-config/hooks` (--config-home) is not a directory");
}

#[test]
fn bad_input_json_is_one_line_naming_the_flag_and_position() {
    let env = Env::new("gates");
    check(
        &env,
        &["run", "pre_tool", "--tool", "shell", "--input", "{\"command\": "],
        "--input is not valid JSON: EOF while parsing a value at line 1 column 12",
    );
    check(
        &env,
        &["run", "pre_tool", "--tool", "shell", "--input", "[1, 2]"],
        "--input must be a JSON object, not an array",
    );
    check(
        &env,
        &["run", "pre_tool", "--tool", "shell", "--input", "@missing.json"],
        "--input file `missing.json` cannot be read",
    );
    check(
        &env,
        &["run", "pre_tool", "--tool", "shell", "--input", "@scripts"],
        "--input file `scripts` is a directory",
    );
    env.write("bad.json", "{\"command\": \"ls\"\n,,}");
    check(
        &env,
        &["run", "pre_tool", "--tool", "shell", "--input", "@bad.json"],
        "--input file `bad.json` is not valid JSON: key must be a string at line 2 column 2",
    );
}

#[test]
fn a_tool_event_without_a_tool_is_one_line() {
    let env = Env::new("gates");
    check(&env, &["run", "pre_tool"], "pre_tool is a tool event: name the tool (--tool NAME");
}

#[test]
fn an_unknown_event_is_one_line_with_a_suggestion() {
    let env = Env::new("gates");
    check(&env, &["run", "pre_tol", "--tool", "shell"], "unknown event `pre_tol` (did you mean `pre_tool`?)");
    check(&env, &["preview", "PreToolUs"], "unknown event `PreToolUs` (did you mean `PreToolUse`?)");
}

#[test]
fn an_unknown_flag_or_subcommand_is_one_line_and_exit_1() {
    let env = Env::new("gates");
    check(&env, &["inspect", "--jsno"], "unexpected argument '--jsno' found (did you mean `--json`?)");
    check(&env, &["inspekt"], "unrecognized subcommand 'inspekt' (did you mean `inspect`?)");
    check(&env, &["--color", "sometimes", "inspect"], "invalid value 'sometimes' for '--color <WHEN>'");
    check(&env, &["trust", "--list", "--revoke", "x"], "cannot be used with");
    check(&env, &["run"], "required arguments were not provided: <EVENT>; usage: hook run <EVENT>");
}

#[test]
fn help_and_version_exit_0_and_global_flags_go_anywhere() {
    let out = std::process::Command::new(HOOK).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Exit codes: 0 success"));
    let out = std::process::Command::new(HOOK).args(["run", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = std::process::Command::new(HOOK).arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // `--version` alone is answered before clap; it says what clap says (here asked through clap, with a flag).
    let clap = std::process::Command::new(HOOK).args(["--color", "never", "--version"]).output().unwrap();
    assert_eq!((clap.status.code(), &clap.stdout), (Some(0), &out.stdout));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("hook {}\n", env!("CARGO_PKG_VERSION")));
    let short = std::process::Command::new(HOOK).arg("-V").output().unwrap();
    assert_eq!((short.status.code(), &short.stdout), (Some(0), &out.stdout));
    let env = Env::new("gates");
    // Global flags before the subcommand (the harness puts --workspace first) and after it.
    let before: Out = env.hook(&["--json", "inspect"]);
    let after: Out = env.hook(&["inspect", "--json"]);
    assert_eq!((before.code, after.code), (0, 0));
    assert_eq!(before.stdout, after.stdout);
}

/// A FIFO where the project's hook file goes aborted `validate`; now it is one issue and the rest is checked.
#[test]
fn a_fifo_as_the_hook_file_aborted_validate_instead_of_being_one_issue() {
    let env = Env::new("gates");
    let fifo = env.ws.join(".hooks/hooks.json");
    rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o644), 0)
        .unwrap();
    let out = env.hook(&["validate"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains(".hooks/hooks.json: error: this path exists but is not a regular file"), "{out:#?}");
    assert!(out.stdout.contains("1 error"), "{out:#?}");
}
