//! What an `async: true` observer costs its dispatch: a post_tool hook that sleeps 2 s, started in the background,
//! against the same hook run synchronously with no sleep (one process spawned and waited for) — the ratio is
//! measured in one run, on one machine. Median of 15 dispatches each; the async hooks are finished between rounds.
//!
//! `cargo bench -p hook-middleware --bench async_observer`; figures are in BENCHMARKS.md.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use hook_config::{Layout, LoadOptions, load};
use hook_middleware::{EventInput, Pipeline};
use hook_types::Event;

const ROUNDS: usize = 15;

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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let input = EventInput::new(Event::PostTool).with_tool("shell", serde_json::json!({"command": "cargo test"}));
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sync = pipeline(&dirs, "- {id: log, on: post_tool, kind: command, shell: 'exit 0'}\n");
    let dirs2 = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let background = pipeline(&dirs2, "- {id: log, on: post_tool, kind: command, async: true, shell: 'sleep 2'}\n");

    let mut baseline = Vec::new();
    let mut asynchronous = Vec::new();
    for _ in 0..ROUNDS {
        let started = Instant::now();
        rt.block_on(sync.dispatch(&input));
        baseline.push(started.elapsed());
        let started = Instant::now();
        let result = rt.block_on(background.dispatch(&input));
        asynchronous.push(started.elapsed());
        assert_eq!(result.background, ["log"]);
    }
    let waited = Instant::now();
    let report = rt.block_on(background.finish_background(Duration::from_secs(30)));
    assert_eq!((report.finished, report.cancelled), (ROUNDS, 0));
    let (baseline, asynchronous) = (median(baseline), median(asynchronous));
    println!("dispatch, one sync `exit 0` command hook (baseline): median {baseline:?}");
    println!("dispatch, one async `sleep 2` hook:                  median {asynchronous:?}");
    println!(
        "ratio async / baseline: {:.2}; then {ROUNDS} async hooks finished in {:?}",
        asynchronous.as_secs_f64() / baseline.as_secs_f64(),
        waited.elapsed()
    );
}
