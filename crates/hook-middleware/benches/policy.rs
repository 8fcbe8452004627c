//! Policy and http hooks: the example fleet policy (`examples/policy`) evaluated in-process per dispatch, and an
//! http hook against the local test server next to a command hook giving the same decision.
//!
//! `cargo bench -p hook-middleware --bench policy`; the figures are in docs/policy.md, each next to a baseline
//! measured in the same run (a prompt hook's dispatch; a command hook's).
#![allow(missing_docs)] // criterion's macros generate undocumented items

use hook_testkit::hook_server;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hook_config::{HookSpec, Layout, LoadOptions, load};
use hook_middleware::{EventInput, Pipeline};
use hook_types::{Event, Verdict};

const EXAMPLE: &str = include_str!("../../../examples/policy/policy/hooks.rego");

/// A pipeline whose user tier is `yaml`, loaded as the user origin of a temporary config home; the example policy
/// is written beside it as `hooks.rego`.
fn pipeline(dirs: &(tempfile::TempDir, tempfile::TempDir), yaml: &str) -> (Pipeline, hook_config::Config) {
    let (workspace, config_home) = dirs;
    std::fs::write(config_home.path().join("hooks.rego"), EXAMPLE).unwrap();
    std::fs::write(config_home.path().join("hooks.yaml"), yaml).unwrap();
    let layout = Layout::new(workspace.path())
        .with_config_home(config_home.path())
        .with_home(None)
        .with_managed_file(config_home.path().join("managed.yaml"));
    let config = load(&layout, &LoadOptions::default()).unwrap();
    assert!(!config.has_errors(), "{:?}", config.issues);
    let pipeline = Pipeline::builder().workspace(workspace.path()).user_hooks(config.hooks.clone()).build().unwrap();
    (pipeline, config)
}

fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

fn shell(command: &str) -> EventInput {
    let mut input = EventInput::new(Event::PreTool).with_tool("shell", serde_json::json!({ "command": command }));
    input.cwd = Some("/work/project".into());
    input
}

const POLICY: &str =
    "- {id: fleet, on: pre_tool, kind: policy, files: [hooks.rego], query: data.hooks.pre_tool.decision}\n";

fn policy(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut group = c.benchmark_group("policy");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    let d = dirs();
    let (prompt, _) = pipeline(&d, "- {id: note, on: pre_tool, kind: prompt, message: \"run the tests\"}\n");
    group.bench_function("baseline: one prompt hook", |b| b.iter(|| rt.block_on(prompt.dispatch(&shell("ls")))));

    let d = dirs();
    let (fleet, config) = pipeline(&d, POLICY);
    let denied = shell("git push --force origin main");
    let passed = shell("cargo test --workspace");
    assert_eq!(rt.block_on(fleet.dispatch(&denied)).verdict, Verdict::Deny);
    assert_eq!(rt.block_on(fleet.dispatch(&passed)).verdict, Verdict::Pass);
    group.bench_function("example policy: dispatch, denied", |b| b.iter(|| rt.block_on(fleet.dispatch(&denied))));
    group.bench_function("example policy: dispatch, passed", |b| b.iter(|| rt.block_on(fleet.dispatch(&passed))));

    // The evaluation alone, on the calling thread: a copy of the engine compiled at load, the input set, the rule
    // asked.
    let HookSpec::Policy(spec) = &config.hooks[0].decl.spec else { panic!("a policy hook") };
    let payload =
        serde_json::Value::Object(hook_middleware::protocol::payload_object(hook_types::Protocol::Native, &denied));
    let limit = Duration::from_secs(1);
    group.bench_function("example policy: evaluation only", |b| {
        b.iter(|| spec.compiled.evaluate(&spec.query, payload.clone(), limit).unwrap())
    });
    let trivial = hook_config::CompiledPolicy::compile(vec![(
        "t.rego".into(),
        "package t\ndefault decision := {\"decision\": \"pass\"}\n".into(),
    )])
    .unwrap();
    group.bench_function("baseline: a one-rule policy, evaluation only", |b| {
        b.iter(|| trivial.evaluate("data.t.decision", payload.clone(), limit).unwrap())
    });
    // The same rule through a dispatch: the rest is the dispatch and the hop to the evaluation's thread and back.
    let d = dirs();
    std::fs::write(d.1.path().join("t.rego"), "package t\ndefault decision := {\"decision\": \"pass\"}\n").unwrap();
    let (one_rule, _) =
        pipeline(&d, "- {id: t, on: pre_tool, kind: policy, files: [t.rego], query: data.t.decision}\n");
    group.bench_function("baseline: a one-rule policy, dispatch", |b| {
        b.iter(|| rt.block_on(one_rule.dispatch(&passed)))
    });
    group.bench_function("example policy: load and compile", |b| {
        b.iter(|| hook_config::CompiledPolicy::compile(vec![("hooks.rego".into(), EXAMPLE.into())]).unwrap())
    });
    group.finish();
}

fn http_vs_command(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = hook_server::HookServer::start(&[("hooks.rego".into(), EXAMPLE.into())]);
    let mut group = c.benchmark_group("http");
    group.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    let input = shell("git push --force origin main");
    let deny = |p: &Pipeline| {
        let result = rt.block_on(p.dispatch(&input));
        assert_eq!(result.verdict, Verdict::Deny, "{result:?}");
    };
    let d = dirs();
    let (command, _) = pipeline(
        &d,
        "- {id: c, on: pre_tool, kind: command, argv: [/bin/echo, '{\"decision\":\"deny\",\"reason\":\"denied\"}']}\n",
    );
    group.bench_function("baseline: command hook (/bin/echo a deny)", |b| b.iter(|| deny(&command)));
    let d = dirs();
    let (native, _) =
        pipeline(&d, &format!("- {{id: h, on: pre_tool, kind: http, url: \"{}\"}}\n", server.url("/native/deny")));
    group.bench_function("http hook, native answer (local server)", |b| b.iter(|| deny(&native)));
    let d = dirs();
    let (opa, _) = pipeline(
        &d,
        &format!(
            "- {{id: h, on: pre_tool, kind: http, format: opa, url: \"{}\"}}\n",
            server.url("/v1/data/hooks/pre_tool/decision")
        ),
    );
    group.bench_function("http hook, OPA API on the example policy (local server)", |b| b.iter(|| deny(&opa)));
    let d = dirs();
    let (local, _) = pipeline(&d, POLICY);
    group.bench_function("policy hook, the example policy in-process", |b| b.iter(|| deny(&local)));
    group.finish();
}

criterion_group!(benches, policy, http_vs_command);
criterion_main!(benches);
