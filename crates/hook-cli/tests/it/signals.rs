//! Killing `hook` never leaves its hooks running: SIGTERM, SIGINT and SIGHUP are forwarded to every running hook
//! group, which is then killed and reaped, escapes through `setsid` included; a SIGKILL of `hook` itself is answered
//! by the watchdog and the leader's parent-death signal.

use crate::common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::Env;
use hook_testkit::process::{eventually, is_dead, read_pid};

/// A gate hook that records its leader, a background child in its group and a child that left with `setsid`, then
/// waits far longer than any test.
fn env_with_lingering_hook() -> Env {
    let env = Env::new("gates");
    let pids = env.home.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let p = pids.display();
    env.write(
        ".hooks/hooks.yaml",
        &format!(
            "- id: lingering\n  on: pre_tool\n  kind: command\n  timeout_ms: 600000\n  shell: \"echo $$ > {p}/leader; \
             sleep 300 & echo $! > {p}/child; (setsid sleep 300 & echo $! > {p}/escaped); sleep 300\"\n"
        ),
    );
    env
}

fn start(env: &Env) -> Child {
    env.command(&["run", "pre_tool", "--tool", "shell", "--trust-workspace", "--no-receipts"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The hook's pids once all three are written.
fn wait_for_pids(env: &Env) -> [i32; 3] {
    let dir = env.home.join("pids");
    let start = Instant::now();
    loop {
        let pids = ["leader", "child", "escaped"].map(|name| read_pid(&dir.join(name)));
        if let [Some(a), Some(b), Some(c)] = pids {
            return [a, b, c];
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the hook never started: {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn all_dead_eventually(pids: &[i32]) -> bool {
    eventually(Duration::from_secs(10), || pids.iter().all(|&p| is_dead(p)))
}

fn kill(pid: i32, signal: rustix::process::Signal) {
    rustix::process::kill_process(rustix::process::Pid::from_raw(pid).unwrap(), signal).unwrap();
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "hook did not exit after the signal");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn killing_hook_with(signal: rustix::process::Signal, number: i32) {
    let env = env_with_lingering_hook();
    let mut hook = start(&env);
    let pids = wait_for_pids(&env);
    kill(hook.id() as i32, signal);
    let status = wait_exit(&mut hook);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut hook.stderr.take().unwrap(), &mut stderr).unwrap();
    let survivors: Vec<i32> = pids.iter().copied().filter(|&p| !is_dead(p)).collect();
    let ok = all_dead_eventually(&pids);
    for &p in &pids {
        if !is_dead(p) {
            kill(p, rustix::process::Signal::KILL);
        }
    }
    assert!(ok, "survivors of {signal:?}: {survivors:?} of [leader, child, escaped] {pids:?}; stderr: {stderr}");
    assert_eq!(status.code(), Some(128 + number), "{stderr}");
    assert!(stderr.contains("interrupted by"), "{stderr}");
}

#[test]
fn sigterm_to_hook_run_leaked_the_hooks_process_group() {
    killing_hook_with(rustix::process::Signal::TERM, 15);
}

#[test]
fn sigint_to_hook_run_leaked_the_hooks_process_group() {
    killing_hook_with(rustix::process::Signal::INT, 2);
}

#[test]
fn sighup_to_hook_run_leaked_the_hooks_process_group() {
    killing_hook_with(rustix::process::Signal::HUP, 1);
}

/// SIGKILL cannot be handled: the watchdog kills the groups and the leader dies with its parent. A process that left
/// the group with `setsid` dies too where the runs have a cgroup (it is in it); elsewhere it is out of reach (the
/// documented limit).
#[test]
fn sigkill_to_hook_run_leaked_the_hooks_process_group() {
    let env = env_with_lingering_hook();
    let mut hook = start(&env);
    let [leader, child, escaped] = wait_for_pids(&env);
    let in_cgroup = std::fs::read_to_string(format!("/proc/{escaped}/cgroup")).is_ok_and(|c| c.contains("/hook-exec."));
    kill(hook.id() as i32, rustix::process::Signal::KILL);
    wait_exit(&mut hook);
    let watched: Vec<i32> = if in_cgroup { vec![leader, child, escaped] } else { vec![leader, child] };
    let ok = all_dead_eventually(&watched);
    for p in [leader, child, escaped] {
        if !is_dead(p) {
            kill(p, rustix::process::Signal::KILL);
        }
    }
    assert!(
        ok,
        "the hook's group survived a SIGKILL of hook: leader {leader} dead {}, child {child} dead {}",
        is_dead(leader),
        is_dead(child)
    );
}

/// `hook test` stops the same way: the case's hooks are stopped and reaped, and it exits 128 + 15.
#[test]
fn sigterm_to_hook_test_leaked_the_hooks_process_group() {
    let env = env_with_lingering_hook();
    env.write(
        "slow.cases.yaml",
        "version: 1\ncases:\n  - name: waits\n    event: pre_tool\n    tool: shell\n    input: {command: ls}\n    expect: {verdict: pass}\n",
    );
    let mut hook = env
        .command(&["test", "slow.cases.yaml", "--trust-workspace"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids = wait_for_pids(&env);
    kill(hook.id() as i32, rustix::process::Signal::TERM);
    let status = wait_exit(&mut hook);
    let ok = all_dead_eventually(&pids);
    for &p in &pids {
        if !is_dead(p) {
            kill(p, rustix::process::Signal::KILL);
        }
    }
    assert!(ok, "survivors of hook test: {pids:?}");
    assert_eq!(status.code(), Some(143));
}
