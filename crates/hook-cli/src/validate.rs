//! `hook validate`: every issue found while loading, one per line as `file:line:column: severity: message` (or
//! `file: severity: message` where the parser gives no position), then the gates the errors leave closed, then a
//! summary; exit 1 on any error-level issue.

use anyhow::Result;
use hook_config::{ClosedGate, Issue, IssueSeverity};
use serde::Serialize;

use crate::context::{Context, display_path};
use crate::exit;
use crate::render::{JSON_VERSION, Style, clean_line, emit, emit_json};

/// The `--json` form.
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    version: u32,
    /// No error-level issue.
    ok: bool,
    errors: usize,
    warnings: usize,
    /// How many hooks are in force.
    hooks: usize,
    issues: &'a [Issue],
    /// The gates that deny until the errors are fixed; left out when there are none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    closed_gates: &'a [ClosedGate],
}

/// Checks the workspace's configuration.
pub fn run(ctx: &Context) -> Result<u8> {
    let config = ctx.load_to_show()?;
    let errors = config.issues.iter().filter(|i| i.severity == IssueSeverity::Error).count();
    let warnings = config.issues.len() - errors;
    let code = if errors > 0 { exit::ERROR } else { exit::SUCCESS };
    if ctx.json {
        let json = ValidateJson {
            version: JSON_VERSION,
            ok: errors == 0,
            errors,
            warnings,
            hooks: config.hooks.len(),
            issues: &config.issues,
            closed_gates: &config.closed_gates,
        };
        emit_json(&json)?;
        return Ok(code);
    }
    let mut out = String::new();
    // By file and position, as a compiler lists them; issues without a position first within their file.
    let mut issues: Vec<&Issue> = config.issues.iter().collect();
    issues.sort_by_key(|i| (i.source.clone(), i.line, i.column));
    for issue in issues {
        // Paths as a compiler prints them, so an editor can jump to them; the rest of the line is hook-config's.
        let shown = Issue { source: display_path(&issue.source).into(), ..issue.clone() };
        out.push_str(&clean_line(&shown.to_string()));
        out.push('\n');
    }
    let closed: Vec<String> = hook_config::GATES
        .iter()
        .filter(|gate| config.closed_gates.iter().any(|c| c.closes(gate)))
        .map(ToString::to_string)
        .collect();
    if !closed.is_empty() {
        // Said once, after the errors it is about: every host denies these gates until they are fixed.
        let line = format!("fails closed: {} deny until the errors above are fixed", closed.join(", "));
        out.push_str(&ctx.painter.paint(Style::Red, &line));
        out.push('\n');
    }
    let files = config.sources.iter().filter(|s| s.found).count();
    let summary = format!(
        "{} hook{} in {files} file{}: {errors} error{}, {warnings} warning{}",
        config.hooks.len(),
        plural(config.hooks.len()),
        plural(files),
        plural(errors),
        plural(warnings)
    );
    let style = if errors > 0 { Style::Red } else { Style::Green };
    out.push_str(&ctx.painter.paint(style, &summary));
    out.push('\n');
    emit(&out)?;
    Ok(code)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
