//! Follow-ups to the pipeline: the run-time fingerprint re-check follows whether the origin was trusted in its load
//! (not the origin's default), and receipts are recorded off the dispatch's task (and still before it returns). (A hook
//! span's status being the folded run summary's: `tracing_capture.rs`.)

use crate::pipeline_support;
use crate::receipts_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use hook_config::{Layout, LoadOptions, TrustStatus, load};
use hook_middleware::Pipeline;
use hook_middleware::receipts::{FileSink, ReceiptSink, RingSink, SinkError};
use hook_types::{Receipt, RunStatus};
use pipeline_support::*;
use receipts_support::Panics;

/// A user hook in `config_home` running `guard.sh` beside it (the user origin's root is its file's directory),
/// which appends a line to the marker `ran` in `$OUT`.
fn user_guard(fx: &Fixture, config_home: &std::path::Path) -> Layout {
    std::fs::create_dir_all(config_home).unwrap();
    let marker = fx.out_file("ran");
    std::fs::write(
        config_home.join("hooks.yaml"),
        format!("- {{id: mine, on: post_tool, kind: command, argv: [./guard.sh, {}]}}\n", marker.display()),
    )
    .unwrap();
    write_script(&config_home.join("guard.sh"), "echo run >> \"$1\"");
    Layout::new(&fx.ws).with_config_home(config_home).with_home(None).with_managed_file(fx.out_file("managed.yaml"))
}

fn write_script(path: &std::path::Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_user_hook_whose_config_home_lies_inside_the_workspace_is_rechecked_before_each_run() {
    let fx = Fixture::new();
    let config_home = fx.ws.join(".config/hooks");
    let layout = user_guard(&fx, &config_home);
    let mut config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(!config.user_trusted, "the repository supplies this config home");
    let [hook] = &mut config.hooks[..] else { panic!("{:#?}", config.hooks) };
    assert!(!hook.origin_trusted);
    assert_eq!(hook.trust, TrustStatus::Untrusted);
    // The host trusts it on its own authority (as `--trust-workspace` does for the project origins): in memory, for
    // the fingerprint it was shown.
    hook.trust = TrustStatus::Trusted;
    let pipeline = Pipeline::builder().workspace(&fx.ws).user_hooks(config.hooks).build().unwrap();
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), [("mine".into(), RunStatus::Completed)]);

    // A `git pull` changes the script under the long-lived pipeline: it must not run until trusted again.
    write_script(&config_home.join("guard.sh"), "echo run >> \"$1\"; echo pwned >> \"$1\"");
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), [("mine".into(), RunStatus::Untrusted)]);
    let entries = entries_of(&result, "mine");
    assert!(entries.contains(".config/hooks/guard.sh` changed since it was trusted"), "{entries}");
    assert_eq!(fx.read_out("ran").unwrap(), "run\n", "the edited script must not run");
}

#[test]
fn a_user_hook_of_a_trusted_config_home_runs_on_the_origins_trust_without_a_recheck() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let layout = user_guard(&fx, outside.path());
    let config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(config.user_trusted && config.hooks[0].origin_trusted);
    let pipeline = Pipeline::builder().workspace(&fx.ws).user_hooks(config.hooks).build().unwrap();
    write_script(&outside.path().join("guard.sh"), "echo edited >> \"$1\"");
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), [("mine".into(), RunStatus::Completed)]);
    assert_eq!(fx.read_out("ran").unwrap(), "edited\n", "the user's own files are the user's to change");
}

/// A sink that, for each receipt, says it started and then blocks its thread until the test answers (5 s at most).
/// Recorded on the dispatch's own task of a current-thread runtime, it would block the one thread the answer has to
/// come from, and fail.
struct Handshake {
    started: tokio::sync::mpsc::UnboundedSender<()>,
    answers: Mutex<mpsc::Receiver<()>>,
    recorded: AtomicUsize,
}

impl ReceiptSink for Handshake {
    fn name(&self) -> String {
        "handshake".into()
    }

    fn record(&self, _: &Receipt) -> Result<(), SinkError> {
        let _ = self.started.send(());
        match self.answers.lock().unwrap().recv_timeout(Duration::from_secs(5)) {
            Ok(()) => {
                self.recorded.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }
            Err(_) => Err(SinkError::Other { sink: self.name(), message: "no answer: it blocked the runtime".into() }),
        }
    }
}

/// One prompt hook on pre_tool: it runs in process, so nothing in the dispatch yields before the receipts.
fn one_prompt_hook() -> Fixture {
    let fx = Fixture::new();
    fx.user_hooks("- {id: note, on: pre_tool, kind: prompt, message: mind the blast radius}");
    fx
}

#[test]
fn a_blocking_sink_does_not_block_a_current_thread_runtime_and_is_done_when_dispatch_returns() {
    let fx = one_prompt_hook();
    let (started, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
    let (answer, answers) = mpsc::channel();
    let sink = Arc::new(Handshake { started, answers: Mutex::new(answers), recorded: AtomicUsize::new(0) });
    let pipeline = fx.builder().receipt_sink(sink.clone()).build().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let input = pre_tool("shell", serde_json::json!({}));
    let begun = Instant::now();
    let (result, ()) = rt.block_on(async {
        // Another task of the same (single) thread answers the sink: it can only run if the sink's wait does not
        // hold the thread.
        let answerer = async {
            started_rx.recv().await.unwrap();
            answer.send(()).unwrap();
        };
        tokio::join!(pipeline.dispatch(&input), answerer)
    });
    assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
    assert_eq!(sink.recorded.load(Ordering::SeqCst), 1, "recorded before dispatch returned");
    assert!(begun.elapsed() < Duration::from_secs(4), "{:?}", begun.elapsed());
}

#[test]
fn a_panicking_sink_is_one_diagnostic_per_dispatch_and_the_other_sinks_record_before_dispatch_returns() {
    let fx = one_prompt_hook();
    let ring = Arc::new(RingSink::new(16));
    let state = tempfile::tempdir().unwrap();
    let file = Arc::new(FileSink::new(state.path().join("receipts.jsonl")));
    let pipeline = fx.builder().receipt_sink(Arc::new(Panics)).receipt_sink(ring.clone()).receipt_sink(file.clone());
    let pipeline = pipeline.build().unwrap();
    for n in 1..=2 {
        let result = dispatch(&pipeline, &pre_tool("shell", serde_json::json!({})));
        let [diagnostic] = &result.diagnostics[..] else { panic!("{:?}", result.diagnostics) };
        assert!(diagnostic.contains("receipt sink `panics`: panicked: disk on fire"), "{diagnostic}");
        assert_eq!(ring.snapshot().len(), n);
        let log = std::fs::read_to_string(file.path()).unwrap();
        assert_eq!(log.lines().count(), n, "the file holds this dispatch's receipt when it returns");
    }
}

/// A sink that panics even when asked its name.
struct PanicsEverywhere;

impl ReceiptSink for PanicsEverywhere {
    fn name(&self) -> String {
        panic!("no name either")
    }

    fn record(&self, _: &Receipt) -> Result<(), SinkError> {
        panic!("disk on fire")
    }
}

#[test]
fn a_sink_that_panics_even_for_its_name_is_still_one_diagnostic() {
    let fx = one_prompt_hook();
    let ring = Arc::new(RingSink::new(16));
    let pipeline = fx.builder().receipt_sink(Arc::new(PanicsEverywhere)).receipt_sink(ring.clone()).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", serde_json::json!({})));
    let [diagnostic] = &result.diagnostics[..] else { panic!("{:?}", result.diagnostics) };
    assert!(diagnostic.contains("(a sink whose name panicked)`: panicked: disk on fire"), "{diagnostic}");
    assert_eq!(ring.snapshot().len(), 1);
}

#[test]
fn a_dispatch_that_matches_nothing_records_nothing() {
    let fx = one_prompt_hook();
    let ring = Arc::new(RingSink::new(16));
    let state = tempfile::tempdir().unwrap();
    let file = Arc::new(FileSink::new(state.path().join("receipts.jsonl")));
    let pipeline = fx.builder().receipt_sink(ring.clone()).receipt_sink(file.clone()).build().unwrap();
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert!(result.runs.is_empty() && result.diagnostics.is_empty(), "{result:?}");
    assert!(ring.snapshot().is_empty());
    assert!(!file.path().exists(), "no log is created when nothing ran");
}
