//! Pipeline dispatch costs: the no-match fast path, one in-process hook, command hooks run concurrently.
//!
//! `cargo bench -p hook-middleware --bench pipeline`; figures and the machine they came from are in BENCHMARKS.md.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hook_config::{Layout, LoadOptions, load};
use hook_middleware::{EventInput, Pipeline};
use hook_types::Event;

/// A pipeline whose user tier is `yaml`, loaded as the user origin of a temporary config home.
fn pipeline(dirs: &(tempfile::TempDir, tempfile::TempDir), yaml: &str) -> Pipeline {
    let (workspace, config_home) = dirs;
    std::fs::write(config_home.path().join("hooks.yaml"), yaml).unwrap();
    let layout = Layout::new(workspace.path())
        .with_config_home(config_home.path())
        .with_home(None)
        .with_managed_file(config_home.path().join("managed.yaml"));
    let config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(!config.has_errors(), "{:?}", config.issues);
    Pipeline::builder().workspace(workspace.path()).user_hooks(config.hooks).build().unwrap()
}

fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

fn hooks(count: usize, line: impl Fn(usize) -> String) -> String {
    (0..count).map(line).collect()
}

fn input() -> EventInput {
    EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({"command": "cargo test"}))
}

fn post_tool() -> EventInput {
    EventInput::new(Event::PostTool).with_tool("shell", serde_json::json!({"command": "cargo test"}))
}

fn in_process(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut group = c.benchmark_group("dispatch");
    // What the runtime costs by itself: `block_on` of a future that is ready at once.
    group.bench_function("baseline: block_on(ready)", |b| b.iter(|| rt.block_on(async { std::hint::black_box(1) })));
    let d = dirs();
    let elsewhere = hooks(100, |i| format!("- {{id: p{i}, on: post_tool, kind: prompt, message: \"m{i}\"}}\n"));
    let none = pipeline(&d, &elsewhere);
    group.bench_function("no match, 100 hooks on other events", |b| b.iter(|| rt.block_on(none.dispatch(&input()))));
    let d = dirs();
    let one =
        pipeline(&d, &format!("{elsewhere}- {{id: note, on: pre_tool, kind: prompt, message: \"run the tests\"}}\n"));
    group.bench_function("one prompt hook, 100 on other events", |b| b.iter(|| rt.block_on(one.dispatch(&input()))));
    // An `if` condition tested against the call: one that does not match (`cargo test` is no push), so the dispatch
    // ends at selection, and one that does, so its prompt runs.
    let d = dirs();
    let push =
        format!("{elsewhere}- {{id: note, on: pre_tool, if: \"shell(git push *)\", kind: prompt, message: m}}\n");
    let unmatched = pipeline(&d, &push);
    group.bench_function("one prompt hook whose if does not match", |b| {
        b.iter(|| rt.block_on(unmatched.dispatch(&input())))
    });
    let d = dirs();
    let test =
        format!("{elsewhere}- {{id: note, on: pre_tool, if: \"shell(cargo test *)\", kind: prompt, message: m}}\n");
    let matched = pipeline(&d, &test);
    group.bench_function("one prompt hook whose if matches", |b| b.iter(|| rt.block_on(matched.dispatch(&input()))));
    group.finish();
}

fn commands(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut group = c.benchmark_group("dispatch");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let run = |p: &Pipeline| {
        let result = rt.block_on(p.dispatch(&post_tool()));
        assert!(result.runs.iter().all(|r| r.status == hook_types::RunStatus::Completed), "{result:?}");
    };
    let d = dirs();
    let one_true = pipeline(&d, "- {id: t, on: post_tool, kind: command, argv: [/bin/true]}\n");
    group.bench_function("1 command hook (/bin/true)", |b| b.iter(|| run(&one_true)));
    let d = dirs();
    let eight_true =
        pipeline(&d, &hooks(8, |i| format!("- {{id: t{i}, on: post_tool, kind: command, argv: [/bin/true]}}\n")));
    group.bench_function("8 command hooks (/bin/true)", |b| b.iter(|| run(&eight_true)));
    let d = dirs();
    let eight_sleep =
        pipeline(&d, &hooks(8, |i| format!("- {{id: s{i}, on: post_tool, kind: command, shell: \"sleep 0.3\"}}\n")));
    group.bench_function("8 command hooks (sleep 0.3)", |b| b.iter(|| run(&eight_sleep)));
    group.finish();
}

criterion_group!(benches, in_process, commands);
criterion_main!(benches);
