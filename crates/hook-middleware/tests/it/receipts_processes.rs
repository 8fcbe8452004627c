//! Several processes appending to one receipt log at once: lines never interleave and the chain never forks.
//!
//! The writers are real separate processes: this test binary re-invoked on one test,
//! [`appender_writes_receipts_that_verify`], with `APPENDER_ENV` telling it to append to a shared log. Run by the
//! harness without that variable, the same test appends to a log of its own and verifies it, so it is a test in
//! its own right rather than a helper that asserts nothing. This needs no extra binary target in the library crate.

use crate::receipts_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use hook_middleware::receipts::{FileSink, FileSinkOptions, ReceiptSink, verify};
use receipts_support::receipt;

/// `<log>\t<count>\t<go file>\t<writer>\t<max_bytes>`: what a child appender does.
const APPENDER_ENV: &str = "HOOK_MIDDLEWARE_TEST_APPENDER";

/// Appends `count` receipts to `log` as writer `writer` (its name goes into each receipt's `session_id`).
fn append(log: &Path, count: u64, writer: &str, max_bytes: u64) {
    // A generous lock timeout: four writers on a loaded CI machine must wait, not fail.
    let options = FileSinkOptions { max_bytes, max_rotated: 10_000, lock_timeout: Duration::from_secs(60), key: None };
    let sink = FileSink::with_options(log, options);
    for i in 1..=count {
        let mut r = receipt(i);
        r.session_id = Some(writer.to_owned());
        sink.record(&r).unwrap_or_else(|e| panic!("writer {writer}, receipt {i}: {e}"));
    }
}

#[test]
fn appender_writes_receipts_that_verify() {
    match std::env::var(APPENDER_ENV) {
        Ok(spec) => {
            let fields: Vec<&str> = spec.split('\t').collect();
            let [log, count, go, writer, max_bytes] = fields[..] else { panic!("bad {APPENDER_ENV}: {spec:?}") };
            let deadline = Instant::now() + Duration::from_secs(60);
            while !Path::new(go).exists() {
                assert!(Instant::now() < deadline, "no go signal");
                std::thread::sleep(Duration::from_millis(1));
            }
            append(Path::new(log), count.parse().unwrap(), writer, max_bytes.parse().unwrap());
        }
        Err(_) => {
            let dir = tempfile::tempdir().unwrap();
            let log = dir.path().join("own.jsonl");
            append(&log, 50, "solo", 8 << 20);
            let report = verify(&log, None).unwrap();
            assert!(report.is_intact(), "{report:#?}");
            assert_eq!(report.lines, 50);
        }
    }
}

/// Starts `writers` copies of this binary appending `each` receipts to `log` at the same moment; waits for all.
fn run_writers(log: &Path, writers: usize, each: u64, max_bytes: u64) -> Duration {
    let go = PathBuf::from(format!("{}.go", log.display()));
    let exe = std::env::current_exe().unwrap();
    let children: Vec<(String, Child)> = (0..writers)
        .map(|w| {
            let writer = format!("writer-{w}");
            let spec = format!("{}\t{each}\t{}\t{writer}\t{max_bytes}", log.display(), go.display());
            let child = Command::new(&exe)
                .arg(hook_testkit::alone::test_name(module_path!(), "appender_writes_receipts_that_verify"))
                .args(["--exact", "--test-threads=1", "--quiet"])
                .env(APPENDER_ENV, spec)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (writer, child)
        })
        .collect();
    let start = Instant::now();
    std::fs::write(&go, "").unwrap();
    for (writer, mut child) in children {
        let status = child.wait().unwrap();
        assert!(status.success(), "{writer} failed: {status}");
    }
    start.elapsed()
}

/// Counts receipts per writer over every segment of the log, checking `seq` runs 1, 2, 3, … without a gap.
fn per_writer(segments: &[PathBuf]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    let mut expected_seq = 1;
    for segment in segments {
        for line in std::fs::read_to_string(segment).unwrap().lines() {
            let value: serde_json::Value = serde_json::from_str(line).expect("every line is whole JSON");
            assert_eq!(value["seq"], expected_seq);
            expected_seq += 1;
            *counts.entry(value["session_id"].as_str().unwrap().to_owned()).or_default() += 1;
        }
    }
    counts
}

#[test]
fn four_processes_appending_1000_receipts_each_leave_a_log_of_4000_lines_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("shared.jsonl");
    let elapsed = run_writers(&log, 4, 1_000, 8 << 20);
    let report = verify(&log, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!(report.lines, 4_000);
    assert_eq!(report.segments, vec![log.clone()]);
    let counts = per_writer(&report.segments);
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), vec![1_000; 4], "{counts:?}");
    assert!(elapsed < Duration::from_secs(120), "4 000 locked appends took {elapsed:?}");
}

#[test]
fn four_processes_rotating_as_they_append_keep_one_chain() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rotating.jsonl");
    run_writers(&log, 4, 250, 16 * 1024);
    let report = verify(&log, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!((report.lines, report.first_seq), (1_000, Some(1)));
    assert!(report.segments.len() > 10, "rotation happened: {} segments", report.segments.len());
    assert_eq!(per_writer(&report.segments).values().sum::<u64>(), 1_000);
}
