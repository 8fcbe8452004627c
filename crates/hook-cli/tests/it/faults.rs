//! Faults around `hook run` that are not the hook's: a full disk under the receipt log, a state directory that
//! cannot be one, a corrupt trust store. The dispatch keeps its verdict, the failure is said on stderr, and
//! nothing is left broken for the next run.

use crate::common;

use std::path::PathBuf;

use common::Env;

const LS: &str = r#"{"command":"ls"}"#;

fn run_args() -> Vec<&'static str> {
    vec!["run", "pre_tool", "--tool", "shell", "--input", LS, "--trust-workspace"]
}

/// The workspace's receipt log under the test's state directory.
fn receipt_log(env: &Env) -> PathBuf {
    let dir = env.home.join("state/hooks/receipts");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap()
}

#[test]
fn a_full_disk_under_the_receipt_log_keeps_the_verdict_and_forks_no_chain() {
    let env = Env::new("gates");
    for _ in 0..3 {
        assert_eq!(env.hook(&run_args()).code, 0);
    }
    let log = receipt_log(&env);
    let before = std::fs::read_to_string(&log).unwrap();
    // A file-size limit just past the log's end, as a nearly full disk: the next append is cut short. SIGXFSZ is
    // ignored so the write fails with EFBIG instead of killing the process.
    let blocks = before.len() / 512 + 1;
    let mut command = env.command_without_workspace(&[]);
    let mut args: Vec<String> =
        vec!["-c".into(), format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$@\""), "sh".into()];
    args.push(common::HOOK.into());
    args.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    args.extend(["--workspace".to_owned(), env.ws.display().to_string()]);
    args.extend(run_args().into_iter().map(str::to_owned));
    command = std::process::Command::new("/bin/sh");
    command
        .args(&args)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", env.home.join("state"))
        .stdin(std::process::Stdio::null());
    let out = env.finish(command);
    assert_eq!(out.code, 0, "the verdict stands: {out:#?}");
    assert!(out.stderr.contains("hook: warning: receipt sink"), "the lost receipts are said: {out:#?}");
    let after_failure = std::fs::read_to_string(&log).unwrap();
    assert_eq!(after_failure, before, "a write cut short leaves no half line");

    assert_eq!(env.hook(&run_args()).code, 0);
    let out = env.hook(&["receipts", "verify"]);
    // The chain runs on unbroken, and the receipts the full disk cost are reported: the log is not intact.
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.starts_with("the chain holds what was written: 8 lines"), "{out:#?}");
    assert!(out.stdout.contains("INCOMPLETE: 2 receipts were not written"), "{out:#?}");
}

#[test]
fn a_state_directory_that_is_a_file_loses_receipts_but_not_the_verdict() {
    let env = Env::new("gates");
    std::fs::write(env.home.join("state"), "not a directory").unwrap();
    let out =
        env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"rm -rf /"}"#, "--trust-workspace"]);
    assert_eq!(out.code, 2, "the deny stands: {out:#?}");
    assert!(out.stderr.contains("hook: warning: receipt sink"), "{out:#?}");
}

#[test]
fn a_corrupt_trust_store_trusts_nothing_and_says_so() {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    std::fs::write(env.trust_store(), "{ this is not json").unwrap();
    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"rm -rf /"}"#]);
    // The gate's command hook is not trusted any more: it does not run (so it cannot deny), and the issue says why.
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("untrusted"), "{out:#?}");
    let out = env.hook(&["validate"]);
    assert!(out.stdout.contains("is not a valid trust store"), "{out:#?}");
    // Trusting again keeps the bad file aside and writes a good store.
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    assert!(env.config_home().join("trusted.json.corrupt").exists());
    assert_eq!(env.hook(&["run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"rm -rf /"}"#]).code, 2);
}
