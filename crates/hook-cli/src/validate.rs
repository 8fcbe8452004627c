//! `hook validate`: every issue found while loading, one per line as `file:line:column: severity: message` (or
//! `file: severity: message` where the parser gives no position), then the gates the errors leave closed, then a
//! summary; exit 1 on any error-level issue.

use std::path::Path;

use anyhow::Result;
use hook_config::{ClosedGate, Config, Issue, IssueSeverity};
use serde::Serialize;

use crate::context::{Context, display_path_from};
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
    let code = report(ctx, &config);
    // The process ends after this command: the configuration's memory goes back to the operating system whole
    // rather than block by block (at 10 000 hooks, freeing it was 6 % of `hook validate`).
    std::mem::forget(config);
    code
}

/// Prints what the load found and returns the exit code.
fn report(ctx: &Context, config: &Config) -> Result<u8> {
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
    let mut out = listing(&config.issues, std::env::current_dir().ok().as_deref());
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

/// One line per issue, by file and position as a compiler lists them (issues without a position first within their
/// file, the order found among equals), each file named relative to `cwd` when it lies under it.
fn listing(issues: &[Issue], cwd: Option<&Path>) -> String {
    let mut sorted: Vec<&Issue> = issues.iter().collect();
    // Compared in place: a key made per comparison (a cloned path) cost an allocation each, n log n of them.
    sorted.sort_by(|a, b| (&a.source, a.line, a.column).cmp(&(&b.source, b.line, b.column)));
    let mut out = String::new();
    for issue in sorted {
        // Paths as a compiler prints them, so an editor can jump to them; the rest of the line is hook-config's.
        let shown = Issue { source: display_path_from(&issue.source, cwd).into(), ..issue.clone() };
        out.push_str(&clean_line(&shown.to_string()));
        out.push('\n');
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn issue(source: &str, line: Option<usize>, message: &str) -> Issue {
        Issue {
            source: PathBuf::from(source),
            index: None,
            hook_id: None,
            field: None,
            line,
            column: line.map(|_| 3),
            severity: IssueSeverity::Warning,
            message: message.to_owned(),
        }
    }

    #[test]
    fn issues_are_listed_by_file_then_position_the_order_found_among_equals() {
        let issues = [
            issue("/ws/.hooks/b.yaml", Some(9), "b9"),
            issue("/ws/.hooks/a.yaml", Some(12), "a12"),
            issue("/ws/.hooks/b.yaml", None, "b-file"),
            issue("/ws/.hooks/a.yaml", Some(2), "a2 first"),
            issue("/elsewhere/hooks.yaml", Some(1), "elsewhere"),
            issue("/ws/.hooks/a.yaml", Some(2), "a2 second"),
        ];
        let listed = listing(&issues, Some(Path::new("/ws")));
        assert_eq!(
            listed,
            "/elsewhere/hooks.yaml:1:3: warning: elsewhere\n\
             .hooks/a.yaml:2:3: warning: a2 first\n\
             .hooks/a.yaml:2:3: warning: a2 second\n\
             .hooks/a.yaml:12:3: warning: a12\n\
             .hooks/b.yaml: warning: b-file\n\
             .hooks/b.yaml:9:3: warning: b9\n"
        );
        // Without a current directory every path is shown whole.
        assert!(listing(&issues, None).starts_with("/elsewhere/hooks.yaml:1:3: warning: elsewhere\n/ws/.hooks/a.yaml"));
    }

    #[test]
    fn thousands_of_issues_keep_every_line_in_order() {
        // Lines in reverse order, two files interleaved: the listing puts each file's lines back in order.
        let issues: Vec<Issue> = (0..5_000)
            .rev()
            .map(|n| issue(if n % 2 == 0 { "/ws/even.yaml" } else { "/ws/odd.yaml" }, Some(n + 1), &n.to_string()))
            .collect();
        let listed = listing(&issues, Some(Path::new("/ws")));
        let lines: Vec<&str> = listed.lines().collect();
        assert_eq!(lines.len(), 5_000);
        let expected: Vec<String> = (0..5_000)
            .filter(|n| n % 2 == 0)
            .map(|n| format!("even.yaml:{}:3: warning: {n}", n + 1))
            .chain((0..5_000).filter(|n| n % 2 == 1).map(|n| format!("odd.yaml:{}:3: warning: {n}", n + 1)))
            .collect();
        assert_eq!(lines, expected);
    }
}
