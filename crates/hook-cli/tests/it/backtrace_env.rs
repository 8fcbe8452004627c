//! `hook` settles the standard library's backtrace choice at its start with `RUST_LIB_BACKTRACE=0` (so that no
//! library error captures a backtrace, whatever `RUST_BACKTRACE` says) and puts the variable back at once: a hook
//! it runs sees the agent's environment as it was, the variable unset or with the agent's own value.

use crate::common::Env;

/// A hook that writes what it sees of the backtrace variables into `seen.txt` in the workspace.
const RECORDER: &str = "- id: records-env\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  argv: [sh, -c, \
                        'printf \"%s %s\" \"${RUST_LIB_BACKTRACE-unset}\" \"${RUST_BACKTRACE-unset}\" > seen.txt']\n";

fn seen_by_the_hook(env: &Env, lib_backtrace: Option<&str>) -> String {
    let mut command = env.command(&["run", "pre_tool", "--tool", "shell", "--input", "{\"command\":\"ls\"}"]);
    command.arg("--trust-workspace").current_dir(&env.ws).env("RUST_BACKTRACE", "1");
    match lib_backtrace {
        Some(value) => command.env("RUST_LIB_BACKTRACE", value),
        None => command.env_remove("RUST_LIB_BACKTRACE"),
    };
    let out = env.finish(command);
    assert_eq!(out.code, 0, "{out:#?}");
    std::fs::read_to_string(env.ws.join("seen.txt")).expect("the hook ran and wrote what it saw")
}

#[test]
fn a_hook_sees_the_backtrace_variables_the_agent_set() {
    let env = Env::new("empty");
    env.write(".hooks/hooks.yaml", RECORDER);
    assert_eq!(seen_by_the_hook(&env, None), "unset 1", "RUST_LIB_BACKTRACE is put back to unset");
    assert_eq!(seen_by_the_hook(&env, Some("full")), "full 1", "and to the agent's value");
}
