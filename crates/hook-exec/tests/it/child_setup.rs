//! What the leader starts with, read from inside it: a process group of its own, no blocked signals, SIGPIPE at its
//! default (the host ignores it), and on Linux the parent-death signal (SIGKILL) exactly when
//! `RunOptions::kill_with_parent` asks for it. These are set between the spawn and the exec, so only the child can
//! tell.

use crate::common;

use std::time::Duration;

use common::deadline;
use hook_exec::{Invocation, RunOptions, run};

/// Prints the parent-death signal of the process it runs in.
const PDEATHSIG: &str =
    "import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print('pdeathsig=%d' % s.value)";

/// The leader's stdout, the leader being `argv` itself (no shell in between to change what is read).
async fn leader_says(argv: &[&str], kill_with_parent: bool) -> String {
    let options = RunOptions { kill_with_parent, ..deadline(Duration::from_secs(20)) };
    let result = run(&Invocation::argv(argv.iter().copied()), &options).await;
    assert!(result.success(), "{result:?} {}", String::from_utf8_lossy(&result.stderr));
    result.stdout_lossy()
}

/// The parent-death signal the leader reports.
async fn pdeathsig(kill_with_parent: bool) -> String {
    let out = leader_says(&["python3", "-c", PDEATHSIG], kill_with_parent).await;
    out.lines().find_map(|l| l.strip_prefix("pdeathsig=")).unwrap_or_else(|| panic!("no pdeathsig in {out}")).to_owned()
}

#[tokio::test]
async fn the_leader_leads_its_group_with_no_signal_blocked_and_sigpipe_at_default() {
    let stat = leader_says(&["cat", "/proc/self/stat"], true).await;
    // pid (comm) state ppid pgrp …: the fields after the command name's closing parenthesis.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split_whitespace().collect();
    let pid = stat.split_whitespace().next().unwrap();
    assert_eq!(fields[2], pid, "its own group: {stat}");
    let status = leader_says(&["grep", "-E", "^(SigBlk|SigIgn):", "/proc/self/status"], true).await;
    let mask = |key: &str| {
        let hex = status.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("no {key} in {status}"));
        u64::from_str_radix(hex.trim(), 16).unwrap()
    };
    assert_eq!(mask("SigBlk:"), 0, "no signal blocked: {status}");
    assert_eq!(mask("SigIgn:") & (1 << (13 - 1)), 0, "SIGPIPE (13) is not ignored: {status}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_parent_death_signal_is_sigkill_exactly_when_asked_for() {
    assert_eq!(pdeathsig(true).await, "9");
    assert_eq!(pdeathsig(false).await, "0");
}
