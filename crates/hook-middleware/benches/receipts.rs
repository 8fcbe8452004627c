//! What a receipt costs a dispatch: one append to the ring and to the hash-chained file (lock, head, write, head
//! replace), with and without a host key, and a dispatch's five receipts as one batch; and what `verify` costs on a 4 000-line log.
//!
//! Run with `cargo bench -p hook-middleware --bench receipts`.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{Criterion, criterion_group, criterion_main};
use hook_middleware::receipts::{FileSink, FileSinkOptions, HostKey, ReceiptSink, RingSink, verify};
use hook_types::{Event, HookKind, Origin, Outcome, Receipt};

fn receipt() -> Receipt {
    Receipt {
        time: "2026-11-30T04:35:23.120Z".into(),
        hook_id: "project.guard".into(),
        origin: Some(Origin::Project),
        source: ".hooks/hooks.yaml".into(),
        hash: "8edef845af953d62".into(),
        event: Event::PreTool,
        kind: HookKind::Command,
        outcome: Outcome::Blocked,
        effects: vec!["block_tool".into()],
        exit_code: Some(2),
        output_bytes: 42,
        tool_name: Some("shell".into()),
        duration_ms: 12,
        http_status: None,
        session_id: Some("sess-1".into()),
        bound: None,
        reason: None,
        background: false,
        dropped: None,
        prev: None,
    }
}

fn receipts(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let r = receipt();

    let ring = RingSink::new(1024);
    c.bench_function("ring_record", |b| b.iter(|| ring.record(&r).expect("ring")));

    let plain = FileSink::new(dir.path().join("plain.jsonl"));
    c.bench_function("file_append", |b| b.iter(|| plain.record(&r).expect("append")));

    let batch = vec![receipt(); 5];
    let batched = FileSink::new(dir.path().join("batched.jsonl"));
    c.bench_function("file_append_batch_of_5", |b| b.iter(|| batched.record_batch(&batch).expect("append")));

    let options = FileSinkOptions { key: Some(HostKey::new(b"host secret".to_vec())), ..FileSinkOptions::default() };
    let keyed = FileSink::with_options(dir.path().join("keyed.jsonl"), options);
    c.bench_function("file_append_keyed", |b| b.iter(|| keyed.record(&r).expect("append")));

    let log = dir.path().join("verify.jsonl");
    let sink = FileSink::new(&log);
    for _ in 0..4_000 {
        sink.record(&r).expect("append");
    }
    c.bench_function("verify_4000_lines", |b| b.iter(|| assert_eq!(verify(&log, None).expect("verify").lines, 4_000)));
}

criterion_group!(benches, receipts);
criterion_main!(benches);
