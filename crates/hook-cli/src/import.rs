//! `hook import --from AGENT [--write]`: the native form of every hook another agent's files declare, printed or
//! written into this engine's own files by origin (hook-config's [`plan_import`] does the work).
//!
//! Without `--write` the YAML each native file would gain is printed under a comment naming the file. With it the
//! files are written and a line per file says how many hooks went where. The issues of the agent's files go to
//! stderr; any error-level one (a hook that could not be read) makes the exit code 1, and `--write` then writes
//! nothing, since a hook left behind would be lost once the agent's file is removed.

use anyhow::Result;
use hook_agents::import::{ImportPlan, ImportedHook, plan_import};
use hook_config::{Format, Issue};
use serde::Serialize;

use crate::cli::ImportArgs;
use crate::context::{Context, display_path};
use crate::exit;
use crate::render::{JSON_VERSION, Style, clean_line, emit, emit_json};

/// The `--json` form.
#[derive(Debug, Serialize)]
struct ImportJson<'a> {
    version: u32,
    from: Format,
    /// Whether the native files were written.
    written: bool,
    /// The agent's files that were read.
    sources: Vec<String>,
    targets: Vec<TargetJson>,
    issues: &'a [Issue],
}

#[derive(Debug, Serialize)]
struct TargetJson {
    origin: hook_types::Origin,
    path: String,
    hooks: Vec<HookJson>,
    /// The YAML the file gains (empty when every hook is there already).
    yaml: String,
}

#[derive(Debug, Serialize)]
struct HookJson {
    id: String,
    hash: String,
    event: String,
    protocol: hook_types::Protocol,
    from: String,
    from_index: usize,
    already_there: bool,
}

/// Runs `hook import`.
pub fn run(ctx: &Context, args: &ImportArgs) -> Result<u8> {
    let format = args.from;
    let plan = plan_import(&ctx.layout, format)?;
    let code = if plan.has_errors() { exit::ERROR } else { exit::SUCCESS };
    let write = args.write && !plan.has_errors();
    if write && !plan.is_empty() {
        plan.write()?;
    }
    if ctx.json {
        emit_json(&json(&plan, write))?;
    } else {
        report_issues(&plan);
        emit(&text(ctx, &plan, args.write, write))?;
    }
    Ok(code)
}

fn json(plan: &ImportPlan, written: bool) -> ImportJson<'_> {
    ImportJson {
        version: JSON_VERSION,
        from: plan.format,
        written,
        sources: plan.sources.iter().map(|s| display_path(s)).collect(),
        targets: plan
            .targets
            .iter()
            .map(|t| TargetJson {
                origin: t.origin,
                path: display_path(&t.path),
                hooks: t.hooks.iter().map(hook_json).collect(),
                yaml: t.block.clone(),
            })
            .collect(),
        issues: &plan.issues,
    }
}

fn hook_json(hook: &ImportedHook) -> HookJson {
    HookJson {
        id: hook.decl.id.clone(),
        hash: hook.decl.hash.clone(),
        event: hook.decl.event.to_string(),
        protocol: hook.decl.protocol,
        from: display_path(&hook.from),
        from_index: hook.from_index,
        already_there: hook.already_there,
    }
}

/// The issues of the agent's files, as `hook validate` prints them, on stderr.
fn report_issues(plan: &ImportPlan) {
    for issue in &plan.issues {
        let shown = Issue { source: display_path(&issue.source).into(), ..issue.clone() };
        eprintln!("{}", clean_line(&shown.to_string()));
    }
    if plan.has_errors() {
        eprintln!(
            "hook: error-level issues kept some {} hooks from being read: fix them, then import again",
            plan.format
        );
    }
}

fn text(ctx: &Context, plan: &ImportPlan, asked_to_write: bool, wrote: bool) -> String {
    let mut out = String::new();
    if plan.sources.is_empty() {
        out.push_str(&format!("no {} files found: nothing to import\n", plan.format));
        return out;
    }
    let total: usize = plan.targets.iter().map(|t| t.hooks.len()).sum();
    if total == 0 {
        out.push_str(&format!("no {} hooks to import\n", plan.format));
        return out;
    }
    for target in &plan.targets {
        let path = display_path(&target.path);
        let new = target.hooks.iter().filter(|h| !h.already_there).count();
        let there = target.hooks.len() - new;
        let already = if there > 0 { format!(" ({there} already there)") } else { String::new() };
        if wrote {
            let line = format!("wrote {new} hook{} to {path}{already}", plural(new));
            out.push_str(&ctx.painter.paint(Style::Green, &line));
            out.push('\n');
        } else if new == 0 {
            out.push_str(&format!("# {path}: every hook is there already\n"));
        } else {
            out.push_str(&format!("# {path} ({}) gains {new} hook{}{already}:\n", target.origin, plural(new)));
            out.push_str(&target.block);
            out.push('\n');
        }
    }
    let sources: Vec<String> = plan.sources.iter().map(|s| display_path(s)).collect();
    if wrote {
        out.push_str(&format!(
            "each hook keeps its protocol and hash; once {} no longer declares them, only the native copies load\n",
            sources.join(", ")
        ));
    } else if !asked_to_write {
        out.push_str("run with --write to add them\n");
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
