//! A dispatch that matches nothing allocates nothing and clones nothing (docs/embedding.md#dispatch-every-event),
//! measured with a counting global allocator (this binary's, `allocator`) on a current-thread runtime: the count is
//! the test thread's own.

use crate::allocator::allocations;
use crate::pipeline_support;

use hook_middleware::pipeline::Pipeline;
use hook_middleware::{AgentFields, DispatchResult, EventInput};
use hook_types::{Event, Protocol, Verdict};
use pipeline_support::*;
use serde_json::{Map, json};

/// Dispatches on a current-thread runtime (everything happens on this thread) and counts the allocations of the
/// dispatch alone: the runtime, the input and the pipeline exist before the count starts.
fn counted(pipeline: &Pipeline, input: &EventInput) -> (u64, DispatchResult) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let before = allocations();
        let result = pipeline.dispatch(input).await;
        (allocations() - before, result)
    })
}

/// 100 hooks, none on pre_tool for `shell`: on other events, and on pre_tool for other tools.
fn busy_elsewhere(extra: &str) -> (Fixture, Pipeline) {
    let fx = Fixture::new();
    let events = ["post_tool", "turn_end", "session_start", "compaction", "notification"];
    let mut yaml: String = (0..80)
        .map(|i| format!("- {{id: other{i}, on: {}, kind: prompt, message: \"m{i}\"}}\n", events[i % events.len()]))
        .collect();
    yaml.extend(
        (0..20).map(|i| format!("- {{id: write{i}, on: pre_tool, kind: prompt, tools: [write], message: \"w{i}\"}}\n")),
    );
    yaml.push_str(extra);
    fx.user_hooks(&yaml);
    let pipeline = fx.pipeline();
    (fx, pipeline)
}

#[test]
fn an_empty_pipeline_dispatch_allocates_nothing() {
    let fx = Fixture::new();
    let pipeline = Pipeline::builder().workspace(&fx.ws).build().unwrap();
    let input = pre_tool("shell", json!({"command": "cargo test", "env": {"A": "b"}}));
    let (allocated, result) = counted(&pipeline, &input);
    assert_eq!(allocated, 0);
    assert_eq!(result.verdict, Verdict::Pass);
}

#[test]
fn a_dispatch_with_100_hooks_on_other_events_and_tools_allocates_nothing() {
    let (_fx, pipeline) = busy_elsewhere("");
    let mut input = pre_tool("shell", json!({"command": "cargo test"}));
    input.tool_aliases = vec!["Bash".into()];
    input.session_id = Some("s1".into());
    let (allocated, result) = counted(&pipeline, &input);
    assert_eq!(allocated, 0, "{result:?}");
    assert!(result.runs.is_empty());
    // turn_start also resets the session's continuation chain on this path: still nothing allocated.
    let (allocated, _) = counted(&pipeline, &EventInput::new(Event::TurnStart).with_session("s1"));
    assert_eq!(allocated, 0);
    // A permission request with nothing matching: verdict none, nothing allocated.
    let mut input = pre_tool("shell", json!({}));
    input.event = Event::PermissionRequest;
    let (allocated, result) = counted(&pipeline, &input);
    assert_eq!((allocated, result.verdict), (0, Verdict::None));
}

#[test]
fn an_agents_pass_through_fields_cost_nothing_when_nothing_matches_or_when_there_are_none() {
    let (_fx, pipeline) = busy_elsewhere("");
    let mut input = pre_tool("shell", json!({"command": "cargo test"}));
    let fields = Map::from_iter([("last_assistant_message".to_owned(), json!("All tests pass."))]);
    input.extra = Some(AgentFields { protocol: Protocol::Claude, fields, keys: Vec::new(), newline: false });
    let (allocated, result) = counted(&pipeline, &input);
    assert_eq!(allocated, 0, "the pass-through is not copied on the no-match path: {result:?}");
    // A host's own input has none, and an input without them allocates nothing for the field.
    let before = allocations();
    let input = EventInput::new(Event::TurnEnd);
    assert_eq!((allocations() - before, input.extra.is_none()), (0, true));
}

#[test]
fn the_same_dispatch_with_one_matching_prompt_hook_does_allocate() {
    // The control: proves the counter sees the dispatch's allocations at all.
    let (_fx, pipeline) =
        busy_elsewhere("- {id: match, on: pre_tool, kind: prompt, tools: [shell], message: \"hi\"}\n");
    let (allocated, result) = counted(&pipeline, &pre_tool("shell", json!({"command": "cargo test"})));
    assert!(allocated > 0);
    assert_eq!(result.runs.len(), 1);
}
