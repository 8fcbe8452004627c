//! `hook test FILE.yaml [--trust-workspace]`: dispatch each case of a file through the workspace's pipeline and
//! compare the outcome with what the case expects. One line per case, then `N passed, N failed`; exit 1 on any
//! failure.
//!
//! The file is a list of cases, or `{version: 1, cases: [...]}`:
//!
//! ```yaml
//! - name: rm -rf is denied
//!   event: pre_tool            # any event name or alias
//!   tool: shell                # tool events
//!   input: {command: rm -rf /} # as `hook run --input`: the tool input, a whole payload, or the event's fields
//!   expect:
//!     verdict: deny            # deny | ask | allow | pass | none
//!     reason_contains: destructive
//!     effects: [block_tool, protect_path]   # exactly these effect kinds, in order
//! ```
//!
//! A matching hook that did not run is listed under its case with the reason (`untrusted`, `modified`, `disabled`,
//! `only_managed`, or `skipped` when another hook's decision kept it from running), and a case whose verdict is not
//! the expected one names the hooks loading kept from running: they could not give it.
//!
//! Cases write no receipts: they are rehearsals, not events the audit log should hold.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use hook_types::{Event, ParsedEvent, RunStatus, Verdict, did_you_mean, effect_kinds};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cli::TestArgs;
use crate::context::Context;
use crate::engine::{Engine, EngineOptions};
use crate::exit;
use crate::input;
use crate::render::{JSON_VERSION, Style, clean_line, emit, emit_json};

/// One case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    event: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    expect: Expect,
}

/// What a case expects.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    verdict: Verdict,
    #[serde(default)]
    reason_contains: Option<String>,
    #[serde(default)]
    effects: Option<Vec<String>>,
}

/// The `{version: 1, cases: [...]}` form.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CasesFile {
    #[serde(default)]
    version: Option<u32>,
    cases: Vec<Case>,
}

/// One case's result.
#[derive(Debug, Serialize)]
struct CaseResult {
    name: String,
    passed: bool,
    /// What the dispatch decided (`null` when the case could not be dispatched).
    verdict: Option<Verdict>,
    reason: Option<String>,
    effects: Vec<String>,
    /// The matching hooks that did not run, and why.
    skipped: Vec<Skipped>,
    /// Each way the outcome differs from the expectation.
    failures: Vec<String>,
}

/// A matching hook that did not run in a case.
#[derive(Debug, Serialize)]
struct Skipped {
    id: String,
    /// `untrusted`, `modified`, `disabled`, `only_managed`, or `skipped` (a guard denied first, a halt, no
    /// evaluator…).
    reason: &'static str,
    /// The pipeline's sentence.
    why: String,
}

impl Skipped {
    /// Whether loading kept it from running (not trusted, changed since trusted, disabled, `only_managed`), as
    /// opposed to another hook's decision in this dispatch.
    fn at_load(&self) -> bool {
        self.reason != "skipped"
    }
}

/// The matching hooks of `runs` that did not run, with the reason read from the pipeline's own sentences.
fn skipped_runs(runs: &[hook_types::RunSummary]) -> Vec<Skipped> {
    use hook_middleware::pipeline::SkipReason;
    runs.iter()
        .filter(|r| matches!(r.status, RunStatus::Skipped | RunStatus::Untrusted))
        .map(|run| {
            let why = run.entries.first().map(|e| e.text.clone()).unwrap_or_default();
            let known = [SkipReason::Disabled, SkipReason::OnlyManaged, SkipReason::Untrusted, SkipReason::Modified]
                .into_iter()
                .find(|r| r.describe() == why);
            let reason = match (run.status, known) {
                (_, Some(SkipReason::Disabled)) => "disabled",
                (_, Some(SkipReason::OnlyManaged)) => "only_managed",
                (_, Some(SkipReason::Untrusted)) => "untrusted",
                // Refused at run time: what it runs changed since it was trusted (or since it was loaded).
                (RunStatus::Untrusted, _) => "modified",
                _ => "skipped",
            };
            Skipped { id: run.hook_id.clone(), reason, why }
        })
        .collect()
}

/// Runs `hook test`.
pub fn run(ctx: &Context, args: &TestArgs) -> Result<u8> {
    let cases = read_cases(&args.file)?;
    crate::signals::supervise();
    let engine = Engine::new(
        ctx,
        EngineOptions { trust_workspace: args.trust_workspace, receipts: false, ..EngineOptions::default() },
    )?;
    let mut results: Vec<CaseResult> = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        match run_case(&engine, i, case) {
            Ok(result) => results.push(result),
            Err(code) => return Ok(code),
        }
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    let passed = results.len() - failed;
    if ctx.json {
        emit_json(&serde_json::json!({
            "version": JSON_VERSION,
            "file": args.file,
            "passed": passed,
            "failed": failed,
            "cases": results,
        }))?;
    } else {
        let mut out = String::new();
        for result in &results {
            if result.passed {
                out.push_str(&format!("{}    {}\n", ctx.painter.paint(Style::Green, "ok"), clean_line(&result.name)));
            } else {
                let why = clean_line(&result.failures.join("; "));
                out.push_str(&format!(
                    "{}  {}: {why}\n",
                    ctx.painter.paint(Style::Red, "FAIL"),
                    clean_line(&result.name)
                ));
            }
            for skipped in &result.skipped {
                let line = format!("skipped `{}` ({}): {}", skipped.id, skipped.reason, skipped.why);
                out.push_str(&format!("      {}", ctx.painter.paint(Style::Yellow, &clean_line(&line))));
                out.push('\n');
            }
        }
        let style = if failed == 0 { Style::Green } else { Style::Red };
        out.push_str(&ctx.painter.paint(style, &format!("{passed} passed, {failed} failed")));
        out.push('\n');
        emit(&out)?;
    }
    Ok(if failed == 0 { exit::SUCCESS } else { exit::ERROR })
}

/// What to do about the hooks loading kept from running.
fn fix_for(skipped: &[Skipped]) -> String {
    let mut fixes: Vec<&str> = Vec::new();
    for s in skipped.iter().filter(|s| s.at_load()) {
        let fix = match s.reason {
            "untrusted" => "review it with `hook trust`, or run the cases with --trust-workspace",
            "modified" => "what it runs changed since it was trusted: review and trust it again with `hook trust`",
            "disabled" => "it says `enabled: false`",
            _ => "`only_managed: true` in the managed file runs managed hooks only",
        };
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    fixes.join("; ")
}

/// Reads the file: serde's messages name the case index and field, with the line and column.
fn read_cases(path: &Path) -> Result<Vec<Case>> {
    if path.is_dir() {
        bail!("test file `{}` is a directory; expected a YAML file of cases", path.display());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("test file `{}` cannot be read", path.display()))?;
    // serde's path starts with a dot (`.[0].expect`); the index reads better without it.
    let invalid = |err: serde_norway::Error| {
        let message = err.to_string();
        anyhow::anyhow!("test file `{}`: {}", path.display(), message.strip_prefix('.').unwrap_or(&message))
    };
    let shape: Value = serde_norway::from_str(&text).map_err(invalid)?;
    let cases = match shape {
        Value::Array(_) => serde_norway::from_str::<Vec<Case>>(&text).map_err(invalid)?,
        Value::Object(_) => {
            let file = serde_norway::from_str::<CasesFile>(&text).map_err(invalid)?;
            if let Some(version) = file.version.filter(|v| *v != 1) {
                bail!("test file `{}`: unsupported version {version}; this hook reads version 1", path.display());
            }
            file.cases
        }
        _ => bail!("test file `{}`: expected a list of cases or `{{version: 1, cases: [...]}}`", path.display()),
    };
    if cases.is_empty() {
        bail!("test file `{}` has no cases", path.display());
    }
    let kinds: Vec<&str> = effect_kinds().collect();
    for (i, case) in cases.iter().enumerate() {
        let at = format!("test file `{}`: case {i} (`{}`)", path.display(), clean_line(&case.name));
        Event::parse(&case.event).map_err(|err| anyhow::anyhow!("{at}: event: {err}"))?;
        for kind in case.expect.effects.iter().flatten() {
            if !kinds.contains(&kind.as_str()) {
                let hint = did_you_mean(kind, kinds.iter().copied())
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                bail!(
                    "{at}: expect.effects: unknown effect kind `{kind}`{hint}; the effect kinds are {}",
                    kinds.join(", ")
                );
            }
        }
    }
    Ok(cases)
}

/// One case's result, or `Err` with the exit code when a signal stopped the run.
fn run_case(engine: &Engine, index: usize, case: &Case) -> Result<CaseResult, u8> {
    let mut result = CaseResult {
        name: case.name.clone(),
        passed: false,
        verdict: None,
        reason: None,
        effects: Vec::new(),
        skipped: Vec::new(),
        failures: Vec::new(),
    };
    // Checked when the file was read.
    let Ok(event): Result<ParsedEvent, _> = Event::parse(&case.event) else { return Ok(result) };
    let session = format!("hook-test-{index}");
    let input = match input::build(
        &event,
        case.tool.as_deref(),
        case.input.clone(),
        Some(&session),
        &engine.config.workspace,
        "input",
    ) {
        Ok(input) => input,
        Err(err) => {
            result.failures.push(format!("{err:#}"));
            return Ok(result);
        }
    };
    let outcome = engine.dispatch_supervised(&input)?;
    result.verdict = Some(outcome.verdict);
    result.reason = outcome.reason.clone();
    result.effects = outcome.effects.iter().map(|e| e.kind().to_owned()).collect();
    result.skipped = skipped_runs(&outcome.runs);
    let expect = &case.expect;
    if outcome.verdict != expect.verdict {
        let reason = outcome.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        let mut failure =
            format!("expected verdict {}, got {}{reason}", expect.verdict.as_str(), outcome.verdict.as_str());
        let unrun: Vec<String> =
            result.skipped.iter().filter(|s| s.at_load()).map(|s| format!("`{}` ({})", s.id, s.reason)).collect();
        if !unrun.is_empty() {
            failure.push_str(&format!(
                ": {} matched and did not run, so {} could not give that verdict ({})",
                unrun.join(", "),
                if unrun.len() == 1 { "it" } else { "they" },
                fix_for(&result.skipped)
            ));
        }
        result.failures.push(failure);
    }
    if let Some(needle) = &expect.reason_contains
        && !outcome.reason.as_deref().is_some_and(|r| r.contains(needle.as_str()))
    {
        let got = outcome.reason.as_deref().map_or("no reason".to_owned(), |r| format!("{r:?}"));
        result.failures.push(format!("expected the reason to contain {needle:?}, got {got}"));
    }
    if let Some(kinds) = &expect.effects
        && *kinds != result.effects
    {
        result.failures.push(format!("expected effects [{}], got [{}]", kinds.join(", "), result.effects.join(", ")));
    }
    result.passed = result.failures.is_empty();
    Ok(result)
}
