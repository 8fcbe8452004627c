//! Reading one file of one format into the model, and views of the result that hold no machine-specific paths.
//!
//! Two views of a hook: [`Row`], a structured record for snapshots, and [`line()`], one compact line for suites that
//! list every hook a file yields (`event[+filters] [matcher] <timeout>ms[ disabled] $ command`).

use std::path::{Path, PathBuf};

use hook_config::{FileContext, FileLoad, Format, HookDecl, HookSpec, IssueSeverity, Program, load_file, parse_str};
use hook_types::{OnError, Origin, Scope};
use serde::Serialize;

/// The workspace [`parse_at`] pretends the text sits in; nothing is read from it.
pub const WORKSPACE: &str = "/ws";

/// Parses `text` as the project-origin file `/ws/<file>` of `format`, touching no file system.
///
/// ```
/// use hook_config::Format;
/// let load = hook_testkit::reader::parse_at("{}", ".claude/settings.json", Format::Claude);
/// assert!(load.hooks.is_empty() && load.issues.is_empty());
/// ```
pub fn parse_at(text: &str, file: &str, format: Format) -> FileLoad {
    parse_as(Origin::Project, text, file, format)
}

/// [`parse_at`] with another origin (a user file, a managed one).
///
/// ```
/// use hook_config::Format;
/// use hook_types::Origin;
/// let load = hook_testkit::reader::parse_as(Origin::User, "{}", ".claude/settings.json", Format::Claude);
/// assert!(load.hooks.is_empty());
/// ```
pub fn parse_as(origin: Origin, text: &str, file: &str, format: Format) -> FileLoad {
    let ws = Path::new(WORKSPACE);
    let cx = FileContext { origin, workspace: ws, root: ws, source_id: None };
    parse_str(text, &ws.join(file), format, &cx)
}

/// Parses `text` as if it were `<workspace>/<file>` of `format`, the workspace a fresh temp dir that exists.
///
/// ```
/// use hook_config::Format;
/// let load = hook_testkit::reader::load_text("version: 1\nhooks: []\n", "hooks.yaml", Format::Native);
/// assert!(load.hooks.is_empty());
/// ```
pub fn load_text(text: &str, file: &str, format: Format) -> FileLoad {
    let ws = tempfile::tempdir().expect("a temp dir");
    let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
    parse_str(text, &ws.path().join(file), format, &cx)
}

/// Loads the real file `<project>/<file>` as a project-origin file of `format`, the project being the workspace and
/// the root.
///
/// ```
/// use hook_config::Format;
/// use hook_testkit::{paths::fixture, reader::load_project};
/// let load = load_project(&fixture("cursor/project"), ".cursor/hooks.json", Format::Cursor);
/// assert!(!load.hooks.is_empty());
/// ```
pub fn load_project(project: &Path, file: &str, format: Format) -> FileLoad {
    let cx = FileContext { origin: Origin::Project, workspace: project, root: project, source_id: None };
    load_file(&project.join(file), format, &cx)
}

/// A loaded command hook as snapshots show it: what it means, not where the fixture sits.
#[derive(Debug, Serialize)]
#[allow(missing_docs)] // Each field is the declaration's field of the same name.
pub struct Row {
    pub id: String,
    pub on: String,
    pub protocol: &'static str,
    pub on_error: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub only_errors: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sequential: bool,
    #[serde(skip_serializing_if = "Clone::clone")]
    pub enabled: bool,
    pub shell: String,
    pub timeout_ms: u64,
    pub hash: String,
}

/// The rows of a load's hooks (command hooks only: the agents' formats declare nothing else).
pub fn rows(load: &FileLoad) -> Vec<Row> {
    load.hooks.iter().map(row).collect()
}

/// One command hook's row; panics (a test failure) for any other kind.
///
/// ```
/// use hook_config::Format;
/// let load = hook_testkit::reader::parse_at(
///     r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
///     ".claude/settings.json", Format::Claude);
/// assert_eq!(hook_testkit::reader::row(&load.hooks[0]).shell, "true");
/// ```
pub fn row(decl: &HookDecl) -> Row {
    let HookSpec::Command(command) = &decl.spec else { panic!("expected a command hook: {decl:?}") };
    Row {
        id: decl.id.clone(),
        on: decl.event.to_string(),
        protocol: decl.protocol.as_str(),
        on_error: match decl.on_error {
            OnError::Deny => "deny",
            OnError::Ignore => "ignore",
        },
        tools: decl.tools.clone(),
        matcher: decl.matcher.as_ref().map(|m| m.pattern.clone()),
        only_errors: decl.filters.only_errors,
        scope: match decl.filters.scope {
            Scope::Main => None,
            Scope::Subagent => Some("subagent"),
            Scope::Any => Some("any"),
        },
        sequential: decl.sequential,
        enabled: decl.enabled,
        shell: program(&command.program),
        timeout_ms: command.timeout_ms,
        hash: decl.hash.clone(),
    }
}

fn program(program: &Program) -> String {
    match program {
        Program::Shell(line) => line.clone(),
        Program::PowerShell(line) => format!("powershell {line}"),
        Program::Argv(argv) => format!("argv {argv:?}"),
    }
}

/// One hook as one line: `event[+only_errors][+scope] [matcher][ if rule] <timeout>ms[ disabled][ async] $ command`
/// for a command hook, `event[+filters] [matcher][ if rule] <timeout>ms model|agent? <prompt>` for a host-evaluated
/// one, `event[+filters] [matcher][ if rule] effect <effect JSON>` for an effect (a closed gate).
///
/// ```
/// use hook_config::Format;
/// let load = hook_testkit::reader::parse_at(
///     r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]}}"#,
///     ".claude/settings.json", Format::Claude);
/// assert_eq!(hook_testkit::reader::line(&load.hooks[0]), "pre_tool [Bash] 600000ms $ guard");
/// ```
pub fn line(hook: &HookDecl) -> String {
    let mut line = hook.event.to_string();
    if hook.filters.only_errors {
        line.push_str("+only_errors");
    }
    match hook.filters.scope {
        Scope::Main => {}
        Scope::Subagent => line.push_str("+subagent"),
        Scope::Any => line.push_str("+any"),
    }
    if let Some(matcher) = &hook.matcher {
        line.push_str(&format!(" [{}]", matcher.pattern));
    }
    if let Some(condition) = &hook.condition {
        line.push_str(&format!(" if {}", condition.as_str()));
    }
    if let HookSpec::Http(http) = &hook.spec {
        line.push_str(&format!(" http {}", http.url));
        return line;
    }
    if let HookSpec::Effect(effect) = &hook.spec {
        line.push_str(&format!(" effect {}", serde_json::to_string(effect).unwrap_or_default()));
        return line;
    }
    if let HookSpec::Evaluated(evaluated) = &hook.spec {
        let by = if evaluated.agent { "agent" } else { "model" };
        line.push_str(&format!(" {}ms {by}? {}", evaluated.timeout_ms, evaluated.prompt));
        return line;
    }
    let row = row(hook);
    line.push_str(&format!(" {}ms", row.timeout_ms));
    if !row.enabled {
        line.push_str(" disabled");
    }
    if hook.run_async {
        line.push_str(" async");
    }
    line.push_str(&format!(" $ {}", row.shell));
    line
}

/// Issues as `file:line:column: severity: field: message`, the file reduced to its name.
pub fn issue_lines(load: &FileLoad) -> Vec<String> {
    load.issues
        .iter()
        .map(|issue| {
            let mut issue = issue.clone();
            issue.source = PathBuf::from(issue.source.file_name().unwrap_or_default());
            issue.to_string()
        })
        .collect()
}

/// Issues as `[line:column: ]severity: field: message`, for suites whose every issue is about the one file.
pub fn bare_issue_lines(load: &FileLoad) -> Vec<String> {
    load.issues
        .iter()
        .map(|issue| {
            let mut issue = issue.clone();
            issue.source = PathBuf::new();
            issue.to_string().trim_start_matches(':').trim_start().to_owned()
        })
        .collect()
}

/// The error-level issues' lines (as [`issue_lines`]).
pub fn errors(load: &FileLoad) -> Vec<String> {
    let errors = FileLoad {
        issues: load.issues.iter().filter(|i| i.severity == IssueSeverity::Error).cloned().collect(),
        ..FileLoad::default()
    };
    issue_lines(&errors)
}

/// Asserts that some issue line contains every one of `needles`.
pub fn assert_issue(load: &FileLoad, needles: &[&str]) {
    let lines = issue_lines(load);
    assert!(
        lines.iter().any(|line| needles.iter().all(|n| line.contains(n))),
        "no issue contains all of {needles:?}:\n{}",
        lines.join("\n")
    );
}

/// Asserts a load's every hook (as [`line()`]s) and every issue (as [`bare_issue_lines`]), in order.
pub fn check_lines(load: &FileLoad, hooks: &[&str], issues: &[&str]) {
    let lines: Vec<String> = load.hooks.iter().map(line).collect();
    assert_eq!(lines, hooks, "{:#?}", load.issues);
    assert_eq!(bare_issue_lines(load), issues);
}

/// The whole load as one snapshot value: the hooks, then the issues.
#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// The hooks' rows.
    pub hooks: Vec<Row>,
    /// The issues' lines (as [`issue_lines`]).
    pub issues: Vec<String>,
}

/// The snapshot of a load.
pub fn snapshot(load: &FileLoad) -> Snapshot {
    Snapshot { hooks: rows(load), issues: issue_lines(load) }
}
