//! The soak: many dispatches of five command hooks — a quick one, one that times out, one that floods its output,
//! one that forks a child holding its stdout, one that detaches a child with `setsid` — from 8 concurrent
//! sessions, into a hash-chained receipt log. Afterwards: no file descriptor leaked, no zombie left, no hook process
//! alive, memory flat, every receipt in the log and the chain intact.
//!
//! The suite runs a modest size; `HOOK_SOAK_DISPATCHES=10000` runs the full one (RELIABILITY.md has its figures).
//! It prints its measurements with `--nocapture`. In a process of its own (`hook_testkit::alone`):
//! it makes the process a child subreaper, as the `hook` CLI does, so that the detached children are adopted and
//! killed, and it counts the process's descriptors, zombies and memory.

use crate::pipeline_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hook_exec::Supervision;
use hook_middleware::EventInput;
use hook_middleware::receipts::{FileSink, verify};
use hook_types::{Event, Limits, RunStatus};
use pipeline_support::Fixture;

/// 8 concurrent sessions, as the issue's soak asks.
const SESSIONS: usize = 8;

/// glibc's allocator tunables for the soak's process. By default glibc raises its mmap threshold each time a mapped
/// block is freed, so after the first floods the 1 MiB capture buffers come from the heap and stay resident when
/// freed: resident memory then follows the highest number of floods that happened to overlap, not what is live (a
/// clean run measured +14 MiB in its second half, others -4 to +6 MiB). A fixed threshold keeps every block of 128
/// KiB or more mapped, returned at its free: the same runs measure within ±1 %.
const FLAT_ALLOCATOR: [(&str, &str); 2] = [("MALLOC_MMAP_THRESHOLD_", "131072"), ("MALLOC_TRIM_THRESHOLD_", "131072")];

fn dispatches() -> usize {
    std::env::var("HOOK_SOAK_DISPATCHES").ok().and_then(|n| n.parse().ok()).unwrap_or(200)
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `(pid, state, ppid)` of every process.
fn processes() -> Vec<(i32, char, i32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let mut fields = stat[stat.rfind(')')? + 2..].split_whitespace();
            let state = fields.next()?.chars().next()?;
            let ppid = fields.next()?.parse().ok()?;
            Some((pid, state, ppid))
        })
        .collect()
}

/// Live (not zombie) processes whose environment carries `mark`: hook processes still running.
fn survivors(mark: &str) -> Vec<i32> {
    let needle = format!("SOAK_MARK={mark}");
    processes()
        .into_iter()
        .filter(|(_, state, _)| !matches!(state, 'Z' | 'X' | 'x'))
        .filter(|(pid, _, _)| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
        })
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Zombies whose parent is this process: children nobody reaped.
fn zombie_children() -> Vec<i32> {
    let me = std::process::id() as i32;
    processes().into_iter().filter(|(_, state, ppid)| *state == 'Z' && *ppid == me).map(|(pid, _, _)| pid).collect()
}

#[test]
fn soak_of_concurrent_dispatches_leaks_nothing_and_loses_no_receipt() {
    if !hook_testkit::alone::in_own_process_with(
        module_path!(),
        "soak_of_concurrent_dispatches_leaks_nothing_and_loses_no_receipt",
        &FLAT_ALLOCATOR,
    ) {
        return;
    }
    hook_exec::supervise(Supervision { subreaper: true, watchdog: true, cgroup: true }).unwrap();
    let n = dispatches();
    let fx = Fixture::new();
    let mark = format!("{}-{}", std::process::id(), n);
    fx.user_hooks(&format!(
        r#"
- {{id: quick, on: post_tool, kind: command, shell: "exit 0", env: {{SOAK_MARK: "{mark}"}}}}
- {{id: slow, on: post_tool, kind: command, shell: "sleep 5", timeout_ms: 100, env: {{SOAK_MARK: "{mark}"}}}}
- {{id: flood, on: post_tool, kind: command, shell: "head -c 3000000 /dev/zero", env: {{SOAK_MARK: "{mark}"}}}}
- {{id: forks, on: post_tool, kind: command, shell: "sleep 30 & echo forked", env: {{SOAK_MARK: "{mark}"}}}}
- {{id: detaches, on: post_tool, kind: command, shell: "setsid sleep 30 >/dev/null 2>&1 < /dev/null & echo detached", env: {{SOAK_MARK: "{mark}"}}}}
"#
    ));
    let log = fx.out_file("receipts/soak.jsonl");
    let limits = Limits { grace_ms: 50, ..Limits::default() };
    let pipeline = Arc::new(
        fx.builder().limits(limits).receipt_sink(Arc::new(FileSink::new(&log))).build().expect("the pipeline builds"),
    );
    let runtime = pipeline_support::runtime();

    // Warm up (the runtime's threads, the allocator's arenas) before taking the baseline.
    let warm = n.div_ceil(10).max(SESSIONS);
    let run_batch = |count: usize| {
        let pipeline = pipeline.clone();
        runtime.block_on(async move {
            let per_session = count.div_ceil(SESSIONS);
            let tasks: Vec<_> = (0..SESSIONS)
                .map(|session| {
                    let pipeline = pipeline.clone();
                    tokio::spawn(async move {
                        let mut bad = Vec::new();
                        for i in 0..per_session {
                            let input = EventInput::new(Event::PostTool)
                                .with_tool("shell", serde_json::json!({"command": "ls"}))
                                .with_session(format!("soak-{session}"));
                            let result = pipeline.dispatch(&input).await;
                            let statuses: Vec<RunStatus> = result.runs.iter().map(|r| r.status).collect();
                            let expected = [
                                RunStatus::Completed,
                                RunStatus::TimedOut,
                                RunStatus::Completed,
                                RunStatus::Completed,
                                RunStatus::Completed,
                            ];
                            if statuses != expected || !result.diagnostics.is_empty() {
                                bad.push(format!("session {session} #{i}: {statuses:?} {:?}", result.diagnostics));
                            }
                        }
                        (per_session, bad)
                    })
                })
                .collect();
            let mut done = 0;
            let mut bad = Vec::new();
            for task in tasks {
                let (count, problems) = task.await.unwrap();
                done += count;
                bad.extend(problems);
            }
            (done, bad)
        })
    };
    let (warm_done, bad) = run_batch(warm);
    assert!(bad.is_empty(), "{bad:#?}");
    let fds_before = open_fds();
    let rss_before = rss_kib();
    let start = Instant::now();
    let half = n.saturating_sub(warm).max(2 * SESSIONS) / 2;
    let (first_half, bad) = run_batch(half);
    assert!(bad.is_empty(), "{} bad dispatches, first: {:?}", bad.len(), bad.first());
    let rss_mid = rss_kib();
    let (second_half, bad) = run_batch(half);
    assert!(bad.is_empty(), "{} bad dispatches, first: {:?}", bad.len(), bad.first());
    let elapsed = start.elapsed();
    let main_done = first_half + second_half;
    let total = warm_done + main_done;

    // Let the kernel finish what the last kills started, then look.
    let settle = Instant::now();
    while settle.elapsed() < Duration::from_secs(10) && (!survivors(&mark).is_empty() || !zombie_children().is_empty())
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let fds_after = open_fds();
    let rss_after = rss_kib();
    let alive = survivors(&mark);
    let zombies = zombie_children();
    let text = std::fs::read_to_string(&log).unwrap();
    let receipts = text.lines().count() + rotated_lines(&log);
    let report = verify(&log, None).unwrap();
    eprintln!(
        "soak: {total} dispatches x 5 command hooks over {SESSIONS} sessions; measured part: {main_done} in {:.1} s \
         ({:.1} dispatches/s); fds {fds_before} -> {fds_after}; RSS {rss_before} -> {rss_mid} -> {rss_after} KiB \
         (second half {:+.1} %); \
         zombies {}; survivors {}; receipts {receipts} of {}; chain intact: {}",
        elapsed.as_secs_f64(),
        main_done as f64 / elapsed.as_secs_f64(),
        (rss_after as f64 - rss_mid as f64) * 100.0 / rss_mid.max(1) as f64,
        zombies.len(),
        alive.len(),
        total * 5,
        report.is_intact(),
    );
    assert!(alive.is_empty(), "hook processes survived: {alive:?}");
    assert!(zombies.is_empty(), "unreaped children: {zombies:?}");
    assert!(fds_after <= fds_before, "file descriptors leaked: {fds_before} -> {fds_after}");
    assert_eq!(receipts, total * 5, "receipts lost");
    assert!(report.is_intact(), "{report:#?}");
    // Flat: the measured part may not grow resident memory by more than an eighth of the baseline plus 8 MiB, nor
    // its second half by more than an eighth plus 4 MiB (with FLAT_ALLOCATOR, runs here stay within ±1 %); a leak of
    // even a kilobyte per dispatch over the full run would be 10 MB.
    assert!(rss_after <= rss_before + rss_before / 8 + 8 * 1024, "memory grew: {rss_before} KiB -> {rss_after} KiB");
    assert!(
        rss_after <= rss_mid + rss_mid / 8 + 4 * 1024,
        "memory grew in the second half: {rss_mid} -> {rss_after} KiB"
    );
}

/// Lines in rotated segments (`<log>.1`, …), which a full run produces.
fn rotated_lines(log: &std::path::Path) -> usize {
    (1..)
        .map(|n| std::path::PathBuf::from(format!("{}.{n}", log.display())))
        .take_while(|p| p.exists())
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
        .sum()
}
