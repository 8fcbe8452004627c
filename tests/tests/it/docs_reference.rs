//! The reference pages under `docs/` hold tables and examples generated from the code, so they cannot drift: the
//! agents' event and tool names come from the agent table (`hook_types::AGENTS`), the effect kinds from
//! `hook_types::effect_kinds`, and each event's example payload from `hook_middleware::protocol::payload`.
//!
//! Each generated part sits between `<!-- begin generated: NAME -->` and `<!-- end generated: NAME -->`. A test
//! fails when a part differs from what the code says; `UPDATE_DOCS=1 cargo test -p hook-tests --test it
//! docs_reference` rewrites them.

use std::path::{Path, PathBuf};

use hook_middleware::EventInput;
use hook_middleware::protocol::payload;
use hook_types::{AGENTS, CANONICAL_EVENTS, CANONICAL_TOOLS, Effect, Event, McpSpelling, Protocol, Scope};
use serde_json::json;

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("docs")
}

/// Checks (or, with `UPDATE_DOCS` set, rewrites) the generated part `name` of `file` under `docs/`.
fn check_generated(file: &str, name: &str, expected: &str) {
    // Tests run in parallel and several rewrite one file: one read-modify-write at a time.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = docs().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let begin = format!("<!-- begin generated: {name} -->\n");
    let end = format!("<!-- end generated: {name} -->");
    let start = text.find(&begin).unwrap_or_else(|| panic!("{file}: no `{}`", begin.trim())) + begin.len();
    let stop = start + text[start..].find(&end).unwrap_or_else(|| panic!("{file}: no `{end}`"));
    if text[start..stop] == *expected {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!("{}{expected}{}", &text[..start], &text[stop..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "docs/{file}: the generated part `{name}` is out of date (UPDATE_DOCS=1 cargo test -p hook-tests --test it \
         docs_reference rewrites it); expected:\n{expected}"
    );
}

/// The agents whose names differ from the canonical vocabulary.
fn spelling_agents() -> impl Iterator<Item = &'static hook_types::Agent> {
    let canonical = Protocol::Native.agent();
    AGENTS.iter().filter(move |a| a.protocol != Protocol::Native && a.tools != canonical.tools)
}

fn code(s: &str) -> String {
    format!("`{s}`")
}

#[test]
fn the_tool_table_is_the_agent_tables() {
    let mut out = String::from("| canonical tool |");
    let agents: Vec<_> = spelling_agents().collect();
    for agent in &agents {
        out.push_str(&format!(" {} |", agent.name));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(agents.len()));
    out.push('\n');
    for tool in CANONICAL_TOOLS {
        out.push_str(&format!("| `{tool}` |"));
        for agent in &agents {
            let names: Vec<String> = agent.tool_names(tool).map(code).collect();
            let cell = if names.is_empty() { "—".to_owned() } else { names.join(", ") };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out.push_str("| `mcp:<server>:<tool>` |");
    for agent in &agents {
        let cell = match agent.mcp {
            Some(McpSpelling::DoubleUnderscore) => "`mcp__<server>__<tool>`",
            None => "—",
        };
        out.push_str(&format!(" {cell} |"));
    }
    out.push('\n');
    let same: Vec<&str> = AGENTS
        .iter()
        .filter(|a| a.protocol != Protocol::Native && a.tools == Protocol::Native.agent().tools)
        .map(|a| a.name)
        .collect();
    if !same.is_empty() {
        out.push_str(&format!("\n{} use the canonical names themselves.\n", same.join(" and ")));
    }
    check_generated("tools.md", "tools", &out);
}

/// An agent's name for an event, with what it implies: a filter, and the tools it is about (Cursor's
/// `afterFileEdit` is about `edit` and `write`).
fn describe(rows: &[&hook_types::AgentEvent]) -> String {
    let row = rows[0];
    let mut notes = Vec::new();
    if row.filters.only_errors {
        notes.push("failed calls only".to_owned());
    }
    if row.filters.scope == Scope::Subagent {
        notes.push("subagents".to_owned());
    }
    let tools: Vec<String> = rows.iter().filter_map(|r| r.tool).map(code).collect();
    if !tools.is_empty() {
        notes.push(format!("tool {}", tools.join(" or ")));
    }
    let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
    format!("`{}`{notes}", row.name)
}

#[test]
fn the_event_table_is_the_agent_tables() {
    let mut out = String::from("| event | class | a native hook's failure | names read |\n|---|---|---|---|\n");
    for event in &CANONICAL_EVENTS {
        let class = serde_json::to_value(event.class()).unwrap();
        let on_error = serde_json::to_value(Protocol::Native.default_on_error(event)).unwrap();
        let mut names = Vec::new();
        for agent in AGENTS.iter().filter(|a| a.protocol != Protocol::Native) {
            let rows = agent
                .events
                .iter()
                .filter(|row| row.event.as_ref() == Some(event))
                .filter(|row| row.name != event.canonical_name());
            let mut by_name: Vec<Vec<&hook_types::AgentEvent>> = Vec::new();
            for row in rows {
                match by_name.iter_mut().find(|same| same[0].name == row.name) {
                    Some(same) => same.push(row),
                    None => by_name.push(vec![row]),
                }
            }
            let unique: Vec<String> = by_name.iter().map(|rows| describe(rows)).collect();
            if !unique.is_empty() {
                names.push(format!("{}: {}", agent.name, unique.join(", ")));
            }
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            event.canonical_name(),
            class.as_str().unwrap(),
            on_error.as_str().unwrap(),
            names.join("; ")
        ));
    }
    check_generated("events.md", "events", &out);

    let mut foreign = String::new();
    for agent in AGENTS.iter().filter(|a| a.events.iter().any(|e| e.event.is_none())) {
        let names: Vec<String> = agent.events.iter().filter(|e| e.event.is_none()).map(|e| code(e.name)).collect();
        foreign.push_str(&format!("- {}: {}\n", agent.name, names.join(", ")));
    }
    check_generated("events.md", "foreign", &foreign);
}

/// A representative input of `event`, as a host would give it.
fn example_input(event: &Event) -> EventInput {
    let mut input = EventInput::new(event.clone()).with_session("s-42");
    input.cwd = Some("/home/me/project".into());
    input.transcript_path = Some("/home/me/.agent/s-42.jsonl".into());
    match event {
        Event::SessionStart => input.source = Some("startup".into()),
        Event::TurnStart => {
            input.turn_id = Some("t-7".into());
            input.prompt = Some("fix the failing test".into());
        }
        Event::PreTool | Event::PermissionRequest => {
            input = input.with_tool("shell", json!({"command": "git push --force"}));
            input.turn_id = Some("t-7".into());
            input.tool_use_id = Some("call-3".into());
        }
        Event::PostTool => {
            input = input.with_tool("shell", json!({"command": "cargo test"}));
            input.turn_id = Some("t-7".into());
            input.tool_use_id = Some("call-4".into());
            input.tool_response = Some(json!({"exit_code": 101}));
            input.is_error = true;
            input.content = Some("test result: FAILED. 1 passed; 1 failed".into());
        }
        Event::TurnEnd => {
            input.turn_id = Some("t-7".into());
            input.stop_hook_active = false;
        }
        Event::Compaction => input.trigger = Some("auto".into()),
        Event::Notification | Event::SessionEnd | Event::Foreign(_) => {}
    }
    input
}

#[test]
fn the_example_payloads_are_what_hooks_read() {
    for event in &CANONICAL_EVENTS {
        let bytes = payload(Protocol::Native, &example_input(event));
        let text = String::from_utf8(bytes).unwrap();
        let block = format!("```json\n{text}```\n");
        check_generated("events.md", &format!("payload {}", event.canonical_name()), &block);
    }
}

/// One minimal effect of each kind, in the order `effect_kinds` lists them.
fn sample_effects() -> Vec<serde_json::Value> {
    vec![
        json!({"kind": "inject_reminder", "message": "run the tests before you commit"}),
        json!({"kind": "annotate_tool_result", "message": "this output is truncated"}),
        json!({"kind": "block_tool", "reason": "force pushes are off"}),
        json!({"kind": "allow_tool", "reason": "read-only command"}),
        json!({"kind": "ask_user", "reason": "pushes need a human"}),
        json!({"kind": "rewrite_tool_input", "input": {"command": "git push --force-with-lease"}}),
        json!({"kind": "protect_path", "path": ".env", "reason": "secrets live here"}),
        json!({"kind": "require_tool", "tool_name": "run_tests"}),
        json!({"kind": "lock_tools"}),
        json!({"kind": "request_continuation", "message": "the tests still fail; keep going"}),
        json!({"kind": "block_turn", "reason": "prompts may not contain keys"}),
        json!({"kind": "halt", "reason": "the budget is spent"}),
        json!({"kind": "notify_operator", "message": "a hook is slow", "key": "slow-hook"}),
    ]
}

#[test]
fn the_effect_table_is_the_closed_set() {
    let samples = sample_effects();
    let kinds: Vec<&str> = hook_types::effect_kinds().collect();
    assert_eq!(samples.len(), kinds.len(), "a sample per effect kind");
    let mut out = String::from("| kind | example | valid on | widens |\n|---|---|---|---|\n");
    for (sample, kind) in samples.iter().zip(&kinds) {
        let effect = Effect::from_json(sample).unwrap();
        assert_eq!(effect.kind(), *kind);
        let on: Vec<String> =
            CANONICAL_EVENTS.iter().filter(|e| effect.valid_on(e)).map(|e| code(e.canonical_name())).collect();
        let not: Vec<String> =
            CANONICAL_EVENTS.iter().filter(|e| !effect.valid_on(e)).map(|e| code(e.canonical_name())).collect();
        let on = match not.len() {
            0 => "every event".to_owned(),
            1 => format!("every event but {}", not[0]),
            _ => on.join(", "),
        };
        let widens = if effect.widens() { "yes" } else { "no" };
        out.push_str(&format!("| [`{kind}`](#{kind}) | `{sample}` | {on} | {widens} |\n"));
    }
    check_generated("effects.md", "effects", &out);
}

/// The docs index links every page under `docs/`, so that none is found only by chance.
#[test]
fn the_docs_index_lists_every_page() {
    let index = std::fs::read_to_string(docs().join("README.md")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(docs()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" && !index.contains(&format!("]({name})")) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(missing.is_empty(), "docs/README.md does not link {missing:?}");
}
