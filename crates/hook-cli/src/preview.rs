//! `hook preview <event>`: what would run for an event, in order, without running anything.

use anyhow::Result;
use hook_middleware::PreviewEntry;
use hook_middleware::pipeline::Phase;
use hook_types::Event;
use serde::Serialize;

use crate::cli::PreviewArgs;
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit;
use crate::render::{JSON_VERSION, Painter, Style, clean_line, emit, emit_json};

/// The `--json` form.
#[derive(Debug, Serialize)]
struct PreviewJson<'a> {
    version: u32,
    event: &'a Event,
    tool: Option<&'a str>,
    hooks: Vec<PreviewHook<'a>>,
}

/// One hook of the preview: the pipeline's entry plus whether it would run.
#[derive(Debug, Serialize)]
struct PreviewHook<'a> {
    #[serde(flatten)]
    entry: &'a PreviewEntry,
    will_run: bool,
}

/// Runs `hook preview`.
pub fn run(ctx: &Context, args: &PreviewArgs) -> Result<u8> {
    let engine = Engine::new(ctx, EngineOptions::default())?;
    let event = &args.event.event;
    let entries = engine.pipeline.preview(event, args.tool.as_deref());
    if ctx.json {
        let hooks = entries.iter().map(|entry| PreviewHook { entry, will_run: entry.will_run() }).collect();
        emit_json(&PreviewJson { version: JSON_VERSION, event, tool: args.tool.as_deref(), hooks })?;
    } else {
        emit(&render(event, args.tool.as_deref(), &entries, &ctx.painter))?;
    }
    Ok(exit::SUCCESS)
}

fn render(event: &Event, tool: Option<&str>, entries: &[PreviewEntry], painter: &Painter) -> String {
    let mut out = String::new();
    let running = entries.iter().filter(|e| e.will_run()).count();
    let mut header = event.to_string();
    if let Some(tool) = tool {
        header.push_str(&format!(" · tool {}", clean_line(&crate::render::tool_label(tool))));
    }
    header.push_str(&format!(" · {} hook(s) match, {running} would run", entries.len()));
    out.push_str(&painter.paint(Style::Bold, &header));
    out.push('\n');
    for (n, entry) in entries.iter().enumerate() {
        let state = match entry.skip {
            None => painter.paint(Style::Green, "runs"),
            Some(skip) => painter.paint(Style::Yellow, &format!("not run: {}", skip_word(skip))),
        };
        out.push_str(&format!("  {:>2}. {}  {state}\n", n + 1, clean_line(&entry.id)));
        let phase = match entry.phase {
            Phase::Guard => "guard, first",
            Phase::InProcess => "in process, in order",
            Phase::Command if entry.sequential => "command, after the hooks before it",
            Phase::Command => "command, concurrently",
        };
        let origin = entry.origin.map_or_else(|| entry.tier.to_string(), |o| o.to_string());
        let mut facts = vec![phase.to_owned(), origin, entry.kind.as_str().to_owned()];
        if !entry.hash.is_empty() {
            facts.push(entry.hash.clone());
        }
        out.push_str(&painter.paint(Style::Dim, &format!("      {}", facts.join(" · "))));
        out.push('\n');
        for condition in &entry.conditions {
            out.push_str(&format!("      only if {}\n", clean_line(condition)));
        }
    }
    if entries.is_empty() {
        out.push_str("  nothing matches: the verdict would be the event's default (`hook explain` says why)\n");
    }
    out
}

fn skip_word(skip: hook_middleware::pipeline::SkipReason) -> &'static str {
    use hook_middleware::pipeline::SkipReason;
    match skip {
        SkipReason::Disabled => "disabled",
        SkipReason::OnlyManaged => "only_managed",
        SkipReason::Untrusted => "untrusted",
        SkipReason::Modified => "modified",
    }
}
