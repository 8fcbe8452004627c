//! The watchdog, seen from outside: a host (this test binary, started again as `watchdog_host`) runs a hook whose
//! group holds a process that is not the leader, and is SIGKILLed. The leader dies with its parent (parent-death
//! signal); the other member only by the watchdog's kill of the group, since no subreaper or cgroup reaches it here.
//! With a cgroup, the watchdog also removes the host's run cgroups (`hook-exec.<pid>.<n>`), and those that hosts
//! gone before it left behind.
#![cfg(target_os = "linux")]

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Scratch, eventually, is_dead};
use hook_exec::{Invocation, Supervision};

/// Where the host writes what the test needs: its own pid, its runs' cgroup, and the pids of its hook.
const HOST_DIR: &str = "HOOK_EXEC_TEST_WATCHDOG_HOST";
/// `1` when the host should put its runs in a cgroup.
const HOST_CGROUP: &str = "HOOK_EXEC_TEST_WATCHDOG_CGROUP";

/// Starts this test binary again, running only `watchdog_host` (ignored in an ordinary run).
fn start_host(dir: &Path, cgroup: bool) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .arg(hook_testkit::alone::test_name(module_path!(), "watchdog_host"))
        .args(["--exact", "--ignored", "--nocapture", "--test-threads", "1"])
        .env(HOST_DIR, dir)
        .env(HOST_CGROUP, if cgroup { "1" } else { "0" })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The children of every thread of `pid`.
fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok())
        .flat_map(|text| text.split_whitespace().filter_map(|p| p.parse().ok()).collect::<Vec<i32>>())
        .collect()
}

/// The descriptors `pid` has open.
fn open_fds(pid: i32) -> Vec<String> {
    match std::fs::read_dir(format!("/proc/{pid}/fd")) {
        Ok(entries) => entries.filter_map(|e| Some(e.ok()?.file_name().to_str()?.to_owned())).collect(),
        Err(_) => Vec::new(),
    }
}

async fn sigkilled_host_leaves_nothing(cgroup: bool) {
    let s = Scratch::new();
    let mut host = start_host(&s.path(""), cgroup);
    assert!(
        eventually(Duration::from_secs(30), || common::read_pid(&s.path("member")).is_some()).await,
        "the host never started its hook"
    );
    let host_pid = host.id() as i32;
    let (leader, member) = (s.pid("leader"), s.pid("member"));
    let watchdog = children(host_pid).into_iter().find(|&c| c != leader).expect("the watchdog is the host's child");
    // It holds nothing of the host's: only its end of the pipe (a hook's output pipe or a lock held open by it
    // would outlive the host).
    let alone = eventually(Duration::from_secs(10), || open_fds(watchdog).len() == 1).await;
    assert!(alone, "the watchdog {watchdog} has {:?} open", open_fds(watchdog));
    let cgroup_dir = std::fs::read_to_string(s.path("cgroup")).unwrap();
    // What hosts that are gone left there (their watchdogs killed too): a run cgroup, and a host cgroup of the
    // layout before with a run cgroup in it.
    let stale = if cgroup_dir.is_empty() {
        Vec::new()
    } else {
        let gone = || {
            let mut child = Command::new("true").spawn().unwrap();
            child.wait().unwrap();
            child.id()
        };
        let run = Path::new(&cgroup_dir).join(format!("hook-exec.{}.0", gone()));
        let old = Path::new(&cgroup_dir).join(format!("hook-exec.{}", gone()));
        std::fs::create_dir(&run).unwrap();
        std::fs::create_dir_all(old.join("run.3")).unwrap();
        vec![run, old]
    };
    common::kill(host_pid);
    host.wait().unwrap();
    let dead = eventually(Duration::from_secs(10), || is_dead(leader) && is_dead(member)).await;
    for pid in [leader, member] {
        common::kill(pid);
    }
    assert!(
        dead,
        "survived the SIGKILLed host: leader {leader} {}, member {member} {}",
        is_dead(leader),
        is_dead(member)
    );
    assert!(eventually(Duration::from_secs(10), || is_dead(watchdog)).await, "the watchdog {watchdog} lives on");
    if cgroup {
        if cgroup_dir.is_empty() {
            eprintln!("no cgroup could be made here: the cgroup's removal is not checked");
        } else {
            let prefix = format!("hook-exec.{host_pid}.");
            let left = || -> Vec<String> {
                std::fs::read_dir(&cgroup_dir)
                    .unwrap()
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|name| name.starts_with(&prefix))
                    .collect()
            };
            let gone = eventually(Duration::from_secs(10), || left().is_empty()).await;
            assert!(gone, "the host's run cgroups {:?} were not removed from {cgroup_dir}", left());
            for dir in &stale {
                assert!(!dir.exists(), "the stale cgroup {} was not removed", dir.display());
            }
        }
    }
}

#[tokio::test]
async fn the_watchdog_kills_the_groups_of_a_sigkilled_host() {
    sigkilled_host_leaves_nothing(false).await;
}

#[tokio::test]
async fn the_watchdog_removes_the_cgroup_of_a_sigkilled_host() {
    sigkilled_host_leaves_nothing(true).await;
}

/// The host of the tests above, started by them; in an ordinary run it is ignored.
#[tokio::test]
#[ignore = "the host process of the watchdog tests, which start it themselves"]
async fn watchdog_host() {
    let dir = std::path::PathBuf::from(std::env::var_os(HOST_DIR).expect("started by a watchdog test"));
    let cgroup = std::env::var_os(HOST_CGROUP).is_some_and(|v| v == "1");
    hook_exec::supervise(Supervision { subreaper: false, watchdog: true, cgroup }).unwrap();
    let cgroup_dir = hook_exec::cgroup_in_use().map(|p| p.display().to_string()).unwrap_or_default();
    std::fs::write(dir.join("cgroup"), cgroup_dir).unwrap();
    let script = format!(
        "echo $$ > {dir}/leader.tmp && mv {dir}/leader.tmp {dir}/leader; sleep 300 & echo $! > {dir}/member.tmp; \
         mv {dir}/member.tmp {dir}/member; wait",
        dir = dir.display()
    );
    let result = hook_exec::run(&Invocation::shell(script), &common::deadline(Duration::from_secs(120))).await;
    panic!("the host's hook ended before the host was killed: {result:?}");
}
