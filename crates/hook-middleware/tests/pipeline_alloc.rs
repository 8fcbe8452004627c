//! A dispatch that matches nothing allocates nothing and clones nothing (docs/embedding.md#dispatch-every-event), measured with a counting
//! global allocator on a current-thread runtime. This binary holds only these tests: the allocator is global.
// A global allocator has to implement the unsafe `GlobalAlloc` trait; the two unsafe blocks only forward to the
// system allocator.
#![allow(unsafe_code)]

mod pipeline_support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hook_middleware::pipeline::Pipeline;
use hook_middleware::{AgentFields, DispatchResult, EventInput};
use hook_types::{Event, Protocol, Verdict};
use pipeline_support::*;
use serde_json::{Map, json};

thread_local! {
    /// Allocations made by this thread. Const-initialized and without a destructor, so reading it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct Counting;

fn count() {
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds `GlobalAlloc`'s contract; the
// counting touches only a thread-local `Cell`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above; `ptr` came from this allocator, which is `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

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
