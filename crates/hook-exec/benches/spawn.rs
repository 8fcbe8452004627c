//! The runner's overhead against a bare `std::process::Command`, on `/bin/true` and on `cat` with a 1 KiB payload.
//!
//! Run with `cargo bench -p hook-exec`; ratios are recorded in BENCHMARKS.md.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hook_exec::{Invocation, RunOptions, run};

fn spawn(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let opts = RunOptions::default();
    let payload = vec![b'x'; 1024];

    let mut group = c.benchmark_group("true");
    group.bench_function("std_spawn_wait", |b| {
        b.iter(|| Command::new("/bin/true").spawn().expect("spawn").wait().expect("wait"))
    });
    group.bench_function("std_piped_output", |b| {
        b.iter(|| Command::new("/bin/true").stdin(Stdio::piped()).output().expect("output"))
    });
    let inv = Invocation::argv(["/bin/true"]);
    group.bench_function("hook_exec", |b| {
        b.iter(|| {
            let result = rt.block_on(run(&inv, &opts));
            assert!(result.success());
        })
    });
    group.finish();

    let mut group = c.benchmark_group("cat_1k");
    group.bench_function("std_piped", |b| {
        b.iter(|| {
            let mut child = Command::new("/bin/cat")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            child.stdin.take().expect("stdin").write_all(&payload).expect("write");
            let output = child.wait_with_output().expect("wait");
            assert_eq!(output.stdout.len(), payload.len());
        })
    });
    let inv = Invocation::argv(["/bin/cat"]).stdin(payload.clone());
    group.bench_function("hook_exec", |b| {
        b.iter(|| {
            let result = rt.block_on(run(&inv, &opts));
            assert_eq!(result.stdout.len(), payload.len());
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(60);
    targets = spawn
}
criterion_main!(benches);
