//! `hook run <event>`: one dispatch exactly as a host would make it, shown as a trace or as versioned JSON; the
//! exit code is the verdict's (deny 2, ask 3, else 0).

use std::path::PathBuf;

use anyhow::Result;
use hook_types::{Effect, Event, RunSummary, Verdict};
use serde::Serialize;

use crate::cli::RunArgs;
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit;
use crate::input::event_input;
use crate::render::{JSON_VERSION, emit, emit_json};
use crate::trace;

/// The `--json` form of `hook run`: stable and versioned.
#[derive(Debug, Serialize)]
struct RunJson<'a> {
    version: u32,
    event: &'a Event,
    tool: Option<&'a str>,
    verdict: Verdict,
    reason: Option<&'a str>,
    effects: &'a [Effect],
    runs: &'a [RunSummary],
    /// A `halt` survived: the host stops the agent's run after this event.
    halted: bool,
    /// Problems of the pipeline itself (a receipt sink that failed, the dispatch deadline).
    diagnostics: &'a [String],
    /// What the user must be told: guards that matched and did not run, a refused continuation.
    notices: &'a [String],
    /// The receipt log written to, if any.
    receipts: Option<&'a PathBuf>,
    /// The `async: true` hooks the dispatch started without waiting (their receipts are written when they end).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    background: &'a [String],
}

/// Runs `hook run`.
pub fn run(ctx: &Context, args: &RunArgs) -> Result<u8> {
    crate::signals::supervise();
    let engine = Engine::new(
        ctx,
        EngineOptions {
            trust_workspace: args.trust_workspace,
            receipts: !args.no_receipts,
            ..EngineOptions::default()
        },
    )?;
    let input = event_input(
        &args.event,
        args.tool.as_deref(),
        args.input.as_deref(),
        args.session_id.as_deref(),
        &engine.config.workspace,
    )?;
    let result = match engine.dispatch_supervised(&input) {
        Ok(result) => result,
        Err(code) => return Ok(code),
    };
    if ctx.json {
        emit_json(&RunJson {
            version: JSON_VERSION,
            event: &input.event,
            tool: input.tool_name.as_deref(),
            verdict: result.verdict,
            reason: result.reason.as_deref(),
            effects: &result.effects,
            runs: &result.runs,
            halted: result.halted,
            diagnostics: &result.diagnostics,
            notices: &result.notices,
            receipts: engine.receipts.as_ref(),
            background: &result.background,
        })?;
    } else {
        emit(&trace::render(&input, &result, &ctx.painter))?;
    }
    // The async hooks it started end (each bounded by its timeout) before the process does, so none outlives it.
    let cancelled = engine.end();
    if cancelled > 0 {
        eprintln!("hook: warning: {cancelled} async hook(s) were still running at exit and were stopped");
    }
    Ok(exit::for_verdict(result.verdict))
}
