//! `hook explain <event> [--tool T] [--input JSON] [--agent A]`: "why didn't my hook fire?" — every hook, matched
//! or not, with the reason, through the pipeline's own routing test
//! ([`Pipeline::explain`](hook_middleware::Pipeline::explain)); then what never reached the pipeline: declarations
//! that did not load, hooks overridden or kept out by a trusted origin, the agent's own hooks (with `--agent`), and
//! the bridge entries.

use std::cell::RefCell;

use anyhow::{Result, bail};
use hook_config::{IssueSeverity, LoadedHook};
use hook_middleware::EventInput;
use hook_middleware::pipeline::{Explanation, SkipReason};
use hook_types::{Agent, Event, Protocol};
use serde::Serialize;

use crate::cli::ExplainArgs;
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit;
use crate::render::{JSON_VERSION, Painter, Style, clean_line, emit, emit_json};

/// The `--json` form.
#[derive(Debug, Serialize)]
struct ExplainJson<'a> {
    version: u32,
    event: &'a Event,
    tool: Option<&'a str>,
    /// How the tool vocabulary reads the tool name.
    tool_reading: Option<String>,
    agent: Option<&'a str>,
    /// Whether `only_errors` and `scope` were tested against an input (`--input`) or left as conditions.
    settled: bool,
    hooks: Vec<ExplainedHook<'a>>,
    /// Hooks of the agent's own files: the agent runs them, the bridge does not (`--agent`).
    agent_runs: Vec<Other>,
    /// Declarations that never reached the pipeline.
    elsewhere: Vec<Other>,
}

/// One hook of the pipeline, with the reason in words.
#[derive(Debug, Serialize)]
struct ExplainedHook<'a> {
    #[serde(flatten)]
    explanation: &'a Explanation,
    will_run: bool,
    why: String,
}

/// A declaration outside the pipeline, and why.
#[derive(Debug, Serialize)]
struct Other {
    /// Its id, where it has one.
    id: Option<String>,
    /// `not_loaded`, `overridden`, `shadowed`, `bridge_entry`, `agent_runs_it`.
    state: &'static str,
    source: String,
    why: String,
}

/// Runs `hook explain`.
pub fn run(ctx: &Context, args: &ExplainArgs) -> Result<u8> {
    let agent = args.agent.map(Protocol::agent);
    let dropped: RefCell<Vec<LoadedHook>> = RefCell::new(Vec::new());
    // As the bridge for that agent builds its engine: what the agent runs itself stays out.
    let engine = Engine::new_keeping(ctx, EngineOptions::default(), |hook| {
        let theirs = args.agent.is_some_and(|a| hook_agents::bridge::agent_runs_it(a, hook));
        if theirs {
            dropped.borrow_mut().push(hook.clone());
        }
        !theirs
    })?;
    let input = explain_input(args, &engine)?;
    let settled = args.input.is_some();
    let explained = engine.pipeline.explain(&input, settled);
    let tool = input.match_value().filter(|_| input.event.is_tool_event());
    let tool_reading = tool.map(|t| reading(t, agent));
    let agent_runs = agents_own(&dropped.into_inner(), agent, &input.event);
    let elsewhere = elsewhere(&engine, &input.event);
    if ctx.json {
        let hooks =
            explained.iter().map(|e| ExplainedHook { explanation: e, will_run: e.will_run(), why: why(e) }).collect();
        emit_json(&ExplainJson {
            version: JSON_VERSION,
            event: &input.event,
            tool,
            tool_reading,
            agent: agent.map(|a| a.id),
            settled,
            hooks,
            agent_runs,
            elsewhere,
        })?;
    } else {
        let head = Head { event: &input.event, tool, tool_reading: tool_reading.as_deref(), settled };
        emit(&render(&head, &explained, &agent_runs, &elsewhere, &ctx.painter))?;
    }
    Ok(exit::SUCCESS)
}

/// The hooks of `event` the bridge for `agent` leaves to the agent: they are declared in its own files.
fn agents_own(hooks: &[LoadedHook], agent: Option<&'static Agent>, event: &Event) -> Vec<Other> {
    let name = agent.map_or("the agent", |a| a.name);
    hooks
        .iter()
        .filter(|h| h.decl.event == *event)
        .map(|h| Other {
            id: Some(h.decl.id.clone()),
            state: "agent_runs_it",
            source: h.decl.source.display().to_string(),
            why: format!("declared in {name}'s own file: {name} runs it itself, not through the bridge"),
        })
        .collect()
}

/// The input to explain: `--input` read as `hook run` reads it (then `only_errors` and `scope` are tested), else
/// the event with the tool (`source` on session_start, `trigger` on compaction) and nothing else.
fn explain_input(args: &ExplainArgs, engine: &Engine) -> Result<EventInput> {
    let event = &args.event;
    if args.input.is_some() {
        let workspace = &engine.config.workspace;
        return crate::input::event_input(event, args.tool.as_deref(), args.input.as_deref(), None, workspace);
    }
    let mut input = EventInput::new(event.event.clone());
    if let Some(tool) = &args.tool {
        match &event.event {
            e if e.is_tool_event() => input.tool_name = Some(tool.clone()),
            Event::SessionStart => input.source = Some(tool.clone()),
            Event::Compaction => input.trigger = Some(tool.clone()),
            other => bail!(
                "--tool names the tool of a tool event (or `source` on session_start, `trigger` on compaction); \
                 {other} has no such field: leave --tool out"
            ),
        }
    }
    Ok(input)
}

/// How the tool vocabulary reads `tool`, from `agent`'s table where one is named.
fn reading(tool: &str, agent: Option<&'static Agent>) -> String {
    let canonical = hook_types::canonical_tool(tool);
    match (agent, canonical.as_deref()) {
        (Some(agent), _) if agent.canonical_tool(tool).is_some() || hook_types::CANONICAL_TOOLS.contains(&tool) => {
            let canonical = agent.canonical_tool(tool).unwrap_or(tool);
            let spellings: Vec<&str> = agent.tool_names(canonical).collect();
            let theirs = if spellings.is_empty() {
                String::new()
            } else {
                format!("; {} calls it {}", agent.name, spellings.join(", "))
            };
            format!("`{tool}` reads as the canonical tool `{canonical}`{theirs}")
        }
        (Some(agent), _) if agent.knows_tool(tool) => {
            format!(
                "`{tool}` is a tool of {} with no canonical equivalent: only `tools: [{tool}]` names it",
                agent.name
            )
        }
        (Some(agent), Some(canonical)) => {
            let spellings: Vec<&str> = agent.tool_names(canonical).collect();
            let theirs = if spellings.is_empty() {
                format!("{} has no tool for it", agent.name)
            } else {
                format!("{} calls it {}", agent.name, spellings.join(", "))
            };
            format!("`{tool}` is not {}'s spelling: another agent's name for `{canonical}` ({theirs})", agent.name)
        }
        (Some(agent), None) => format!(
            "{} has no tool `{tool}`, and no agent's vocabulary knows it: only `tools: [{tool}]` or a matcher naming \
             it exactly matches it",
            agent.name
        ),
        (None, Some(canonical)) if canonical == tool => format!("`{tool}` is a canonical tool"),
        (None, Some(canonical)) => format!("`{tool}` reads as the canonical tool `{canonical}`"),
        (None, None) => format!(
            "no agent's tool vocabulary knows `{tool}`: only `tools: [{tool}]` or a matcher naming it exactly matches it"
        ),
    }
}

/// The reason of one pipeline hook, in words.
fn why(e: &Explanation) -> String {
    match (&e.mismatch, e.entry.skip) {
        (Some(mismatch), _) => format!("does not match: {}", mismatch.describe()),
        (None, Some(skip)) => format!("matches, {}", skip.describe()),
        (None, None) if e.entry.conditions.is_empty() => "matches and runs".to_owned(),
        (None, None) => format!("matches and runs {}", e.entry.conditions.join(", ")),
    }
}

/// What keeps a hook from running, in one word.
fn state(e: &Explanation) -> &'static str {
    match (&e.mismatch, e.entry.skip) {
        (Some(_), _) => "no match",
        (None, Some(SkipReason::Disabled)) => "disabled",
        (None, Some(SkipReason::OnlyManaged)) => "only_managed",
        (None, Some(SkipReason::Untrusted)) => "untrusted",
        (None, Some(SkipReason::Modified)) => "modified",
        (None, None) => "runs",
    }
}

/// The declarations that never reached the pipeline, for `event`: dropped by an issue (not loaded; on any event,
/// since an unread declaration's event may not be known), overridden, kept out by a trusted origin, bridge entries;
/// and the hooks the pipeline itself refused (an id already taken).
fn elsewhere(engine: &Engine, event: &Event) -> Vec<Other> {
    let config = &engine.config;
    let mut out = Vec::new();
    let issues = config.issues.iter().cloned().chain(engine.pipeline.issues()).collect::<Vec<_>>();
    for issue in &issues {
        let drops = issue.severity == IssueSeverity::Error || issue.message.contains("not loaded");
        if drops && (issue.index.is_some() || issue.hook_id.is_some()) {
            out.push(Other {
                id: issue.hook_id.clone(),
                state: "not_loaded",
                source: issue.source.display().to_string(),
                why: format!("not loaded: {}", issue),
            });
        }
    }
    for o in config.overridden.iter().filter(|o| o.hook.decl.event == *event) {
        out.push(Other {
            id: Some(o.hook.decl.id.clone()),
            state: "overridden",
            source: o.hook.decl.source.display().to_string(),
            why: format!(
                "overridden: the {} hook of the same id in {} takes its place",
                o.winner_origin,
                o.winner_source.display()
            ),
        });
    }
    for s in config.shadowed.iter().filter(|s| s.attempted.decl.event == *event) {
        out.push(Other {
            id: Some(s.id.clone()),
            state: "shadowed",
            source: s.attempted.decl.source.display().to_string(),
            why: format!("kept out: {}", s.message()),
        });
    }
    for e in config.excluded.iter().filter(|e| e.decl.event == *event) {
        out.push(Other {
            id: Some(e.decl.id.clone()),
            state: "bridge_entry",
            source: e.decl.source.display().to_string(),
            why: format!("not a hook: {}", e.reason.describe()),
        });
    }
    out
}

/// The first line's facts.
struct Head<'a> {
    event: &'a Event,
    tool: Option<&'a str>,
    tool_reading: Option<&'a str>,
    settled: bool,
}

fn render(
    head: &Head<'_>,
    hooks: &[Explanation],
    agent_runs: &[Other],
    elsewhere: &[Other],
    painter: &Painter,
) -> String {
    let mut out = String::new();
    let matched = hooks.iter().filter(|e| e.mismatch.is_none()).count();
    let running = hooks.iter().filter(|e| e.will_run()).count();
    let mut header = head.event.to_string();
    if let Some(tool) = head.tool {
        header.push_str(&format!(" · tool {}", clean_line(tool)));
    }
    header.push_str(&format!(" · {} hook(s): {matched} match, {running} would run", hooks.len()));
    out.push_str(&painter.paint(Style::Bold, &header));
    out.push('\n');
    if let Some(reading) = head.tool_reading {
        out.push_str(&painter.paint(Style::Dim, &format!("  {}\n", clean_line(reading))));
    }
    if !head.settled {
        out.push_str(
            &painter.paint(Style::Dim, "  without --input, `only_errors` and `scope` are listed as conditions\n"),
        );
    }
    for e in hooks {
        let word = state(e);
        let style = match word {
            "runs" => Style::Green,
            "no match" => Style::Dim,
            _ => Style::Yellow,
        };
        let origin = e.entry.origin.map_or_else(|| e.entry.tier.to_string(), |o| o.to_string());
        out.push_str(&format!(
            "  {} {}  {}\n",
            painter.paint(style, &format!("{word:<12}")),
            clean_line(&e.entry.id),
            painter.paint(Style::Dim, &format!("{origin} · {}", e.entry.kind.as_str()))
        ));
        out.push_str(&format!("               {}\n", clean_line(&why(e))));
        if let Some(dropped) = &e.allow_dropped {
            let line = format!("its allow would be dropped: {dropped}");
            out.push_str(&format!("               {}\n", painter.paint(Style::Yellow, &clean_line(&line))));
        }
    }
    if hooks.is_empty() {
        out.push_str("  no hooks: the verdict would be the event's default\n");
    }
    for (title, others) in [("run by the agent itself", agent_runs), ("outside the pipeline", elsewhere)] {
        if others.is_empty() {
            continue;
        }
        out.push_str(&painter.paint(Style::Bold, &format!("{title} ({})", others.len())));
        out.push('\n');
        for o in others {
            let id = o.id.as_deref().map_or(String::new(), |id| format!("{}  ", clean_line(id)));
            out.push_str(&format!(
                "  {} {id}{}\n",
                painter.paint(Style::Yellow, &format!("{:<12}", o.state)),
                painter.paint(Style::Dim, &clean_line(&o.source))
            ));
            out.push_str(&format!("               {}\n", clean_line(&o.why)));
        }
    }
    out
}
