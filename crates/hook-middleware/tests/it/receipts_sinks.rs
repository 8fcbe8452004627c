//! The sinks and the fan-out: the ring keeps the newest receipts, the tracing sink emits every field, a file sink
//! whose path cannot be created (or whose lock is held) fails without hanging, and the fan-out turns each failing
//! sink into exactly one diagnostic per dispatch. (The tracing sink and the spans: `tracing_capture.rs`.)

use crate::receipts_support;

use std::fs::{self, File};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hook_middleware::receipts::{
    FileSink, FileSinkOptions, ReceiptSink, RingSink, SinkError, Sinks, TracingSink, verify,
};
use hook_types::Receipt;
use receipts_support::{Panics, receipt};
use rustix::fs::{FlockOperation, flock};

/// A workspace state directory where `hooks` is a regular file: the log's directory can never be created, even
/// by root.
fn blocked_path() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hooks"), "a file where a directory should be").unwrap();
    let log = dir.path().join("hooks/receipts/ws.jsonl");
    (dir, log)
}

/// Records `receipts` through `sinks` and checks the diagnostics: one `(sink name fragment, failed, message
/// fragment)` per failing sink, in sink order.
fn check(sinks: &Sinks, receipts: &[Receipt], expected: &[(&str, usize, &str)]) {
    let diagnostics = sinks.record_all(receipts);
    assert_eq!(diagnostics.len(), expected.len(), "{diagnostics:#?}");
    for (diagnostic, (sink, failed, message)) in diagnostics.iter().zip(expected) {
        assert!(diagnostic.sink.contains(sink), "{} vs {sink}", diagnostic.sink);
        assert_eq!((diagnostic.failed, diagnostic.attempted), (*failed, receipts.len()));
        let text = diagnostic.to_string();
        assert!(text.contains(message), "{text:?} lacks {message:?}");
    }
}

#[test]
fn ring_keeps_the_newest_receipts_in_order() {
    let ring = RingSink::new(3);
    for i in 1..=5 {
        ring.record(&receipt(i)).unwrap();
    }
    let ids: Vec<String> = ring.snapshot().into_iter().map(|r| r.hook_id).collect();
    assert_eq!(ids, ["project.guard-3", "project.guard-4", "project.guard-5"]);
    assert_eq!((ring.capacity(), ring.dropped()), (3, 2));
}

#[test]
fn uncreatable_receipt_path_fails_record_with_the_path_and_the_action() {
    let (_dir, log) = blocked_path();
    let err = FileSink::new(&log).record(&receipt(1)).unwrap_err();
    let SinkError::Io { action, path, .. } = &err else { panic!("{err:?}") };
    assert_eq!((*action, path), ("creating the directory", &log.parent().unwrap().to_owned()));
    let text = err.to_string();
    assert!(text.contains(&format!("file:{}", log.display())) && text.contains("creating the directory"), "{text}");
}

#[test]
fn uncreatable_receipt_path_gives_one_diagnostic_per_dispatch_while_the_other_sinks_record() {
    let (dir, log) = blocked_path();
    let ring = Arc::new(RingSink::new(64));
    let sinks = Sinks::new().with(ring.clone()).with(Arc::new(FileSink::new(&log))).with(Arc::new(TracingSink));
    let dispatch: Vec<Receipt> = (1..=3).map(receipt).collect();
    check(&sinks, &dispatch, &[("file:", 3, "3 of 3 receipts not recorded")]);
    check(&sinks, &dispatch, &[("file:", 3, "creating the directory")]);
    assert_eq!(ring.snapshot().len(), 6, "the ring recorded every receipt of both dispatches");
    assert_eq!(sinks.failing(), [format!("file:{}", log.display())]);

    // Once the obstacle is gone the sink recovers: no diagnostic, and a chain that verifies.
    fs::remove_file(dir.path().join("hooks")).unwrap();
    check(&sinks, &dispatch, &[]);
    assert!(sinks.failing().is_empty());
    assert!(verify(&log, None).unwrap().is_intact());
}

#[test]
fn held_lock_fails_the_append_after_the_lock_timeout_and_marks_the_receipt_missing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("ws.jsonl");
    let options = FileSinkOptions { lock_timeout: Duration::from_millis(100), ..FileSinkOptions::default() };
    let sink = FileSink::with_options(&log, options);
    sink.record(&receipt(1)).unwrap();

    let holder = File::open(format!("{}.lock", log.display())).unwrap();
    flock(&holder, FlockOperation::LockExclusive).unwrap();
    let start = Instant::now();
    let err = sink.record(&receipt(2)).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "waited {:?}", start.elapsed());
    assert!(err.to_string().contains("locking") && err.to_string().contains("is locked by another process"), "{err}");

    drop(holder);
    sink.record(&receipt(3)).unwrap();
    let report = verify(&log, None).unwrap();
    // The chain holds what was written; the receipt that was not is reported, so the log is not intact.
    assert!(report.chain_intact() && report.lines == 2, "{report:#?}");
    let missing = report.missing.as_ref().expect("the lost receipt is reported");
    assert_eq!((missing.receipts, missing.marks), (1, 1), "{missing:#?}");
    assert_eq!(missing.first.as_deref(), Some(receipt(2).time.as_str()));
    assert!(!report.is_intact());
}

#[test]
fn panicking_sink_becomes_a_diagnostic_not_a_crash() {
    let ring = Arc::new(RingSink::new(8));
    let sinks = Sinks::new().with(Arc::new(Panics)).with(ring.clone());
    check(&sinks, &[receipt(1), receipt(2)], &[("panics", 2, "panicked: disk on fire")]);
    assert_eq!(ring.snapshot().len(), 2);
}

#[test]
fn workspace_id_names_the_canonical_workspace_so_a_symlink_shares_its_log() {
    use hook_middleware::receipts::{receipt_path_in, workspace_id};
    let dir = tempfile::tempdir().unwrap();
    let (real, other, link) = (dir.path().join("ws"), dir.path().join("other"), dir.path().join("link"));
    fs::create_dir(&real).unwrap();
    fs::create_dir(&other).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let id = workspace_id(&real);
    assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(workspace_id(&link), id);
    assert_ne!(workspace_id(&other), id);
    let state = dir.path().join("state");
    assert_eq!(receipt_path_in(&state, &link), state.join(format!("hooks/receipts/{id}.jsonl")));
}
