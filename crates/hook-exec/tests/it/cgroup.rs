//! Cgroup supervision, where this process may create cgroups below its own: each run in a cgroup of its own, killed
//! and removed when the run ends, so a child that left both the group and the session (`setsid`) dies with its run.
//! Where no cgroup can be made, supervision says so and runs go on as before. In a process of its own
//! (`hook_testkit::alone`): supervision changes the whole process.

use crate::common;

use std::time::Duration;

use common::{Scratch, eventually, is_dead};
use hook_exec::{Exit, Invocation, Supervision};

#[tokio::test]
async fn a_setsid_escape_dies_with_its_runs_cgroup() {
    if !hook_testkit::alone::in_own_process(module_path!(), "a_setsid_escape_dies_with_its_runs_cgroup") {
        return;
    }
    hook_exec::supervise(Supervision { cgroup: true, ..Supervision::default() }).unwrap();
    let s = Scratch::new();
    // The escape's parent stays alive until the run's end, so neither the group kill nor an orphan sweep reaches it.
    let script = format!("setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > {}; exit 0", s.quoted("escaped"));
    let result = hook_exec::run(&Invocation::shell(script), &common::deadline(Duration::from_secs(30))).await;
    assert_eq!(result.exit, Some(Exit::Code(0)), "{result:?}");
    let escaped = s.pid("escaped");
    match hook_exec::cgroup_in_use() {
        Some(root) => {
            let dead = eventually(Duration::from_secs(5), || is_dead(escaped)).await;
            if !dead {
                common::kill(escaped);
            }
            assert!(dead, "the setsid escape {escaped} outlived its run's cgroup");
            let ours = format!("hook-exec.{}.", std::process::id());
            let runs: Vec<_> = std::fs::read_dir(&root)
                .unwrap()
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|name| name.starts_with(&ours))
                .collect();
            assert!(runs.is_empty(), "run cgroups left behind in {}: {runs:?}", root.display());
        }
        None => {
            // No cgroup to be had here: the run still ran; the escape is out of reach, as documented.
            common::kill(escaped);
        }
    }
}
