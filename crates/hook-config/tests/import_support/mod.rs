//! What the agent-reader suites (gemini, cursor, mecha) and the import suite share: loading a fixture file of one
//! format, and a view of the result for snapshots and assertions that holds no machine-specific paths.

#![allow(dead_code)] // Each test binary uses its own part.

use std::path::{Path, PathBuf};

use hook_config::{FileContext, FileLoad, Format, HookDecl, HookSpec, IssueSeverity, Program, load_file, parse_str};
use hook_types::Origin;
use serde::Serialize;

/// `tests/fixtures/<rest>` of the repository.
pub fn fixture(rest: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rest).canonicalize().unwrap()
}

/// Loads `<project>/<file>` as a project-origin file of `format`, the project being the workspace and the root.
pub fn load_project(project: &Path, file: &str, format: Format) -> FileLoad {
    let cx = FileContext { origin: Origin::Project, workspace: project, root: project, source_id: None };
    load_file(&project.join(file), format, &cx)
}

/// Loads `text` as if it were `<workspace>/<file>` of `format` (the workspace: a fresh temp dir).
pub fn load_text(text: &str, file: &str, format: Format) -> FileLoad {
    let ws = tempfile::tempdir().unwrap();
    let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
    parse_str(text, &ws.path().join(file), format, &cx)
}

/// A loaded hook as snapshots show it: what it means, not where the fixture sits.
#[derive(Debug, Serialize)]
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

/// One hook's row.
pub fn row(decl: &HookDecl) -> Row {
    let HookSpec::Command(command) = &decl.spec else { panic!("expected a command hook: {decl:?}") };
    let shell = match &command.program {
        Program::Shell(line) => line.clone(),
        Program::Argv(argv) => format!("argv {argv:?}"),
    };
    Row {
        id: decl.id.clone(),
        on: decl.event.to_string(),
        protocol: decl.protocol.as_str(),
        on_error: match decl.on_error {
            hook_types::OnError::Deny => "deny",
            hook_types::OnError::Ignore => "ignore",
        },
        tools: decl.tools.clone(),
        matcher: decl.matcher.as_ref().map(|m| m.pattern.clone()),
        only_errors: decl.filters.only_errors,
        scope: match decl.filters.scope {
            hook_types::Scope::Main => None,
            hook_types::Scope::Subagent => Some("subagent"),
            hook_types::Scope::Any => Some("any"),
        },
        sequential: decl.sequential,
        enabled: decl.enabled,
        shell,
        timeout_ms: command.timeout_ms,
        hash: decl.hash.clone(),
    }
}

/// Issues as `file:line:column: severity: field: message`, the file reduced to its name.
pub fn issue_lines(load: &FileLoad) -> Vec<String> {
    load.issues
        .iter()
        .map(|issue| {
            let mut issue = issue.clone();
            issue.source = PathBuf::from(issue.source.file_name().unwrap());
            issue.to_string()
        })
        .collect()
}

/// The error-level issues' lines.
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

/// The whole load as one snapshot value: the hooks, then the issues.
#[derive(Serialize)]
pub struct Snapshot {
    pub hooks: Vec<Row>,
    pub issues: Vec<String>,
}

/// The snapshot of a load.
pub fn snapshot(load: &FileLoad) -> Snapshot {
    Snapshot { hooks: rows(load), issues: issue_lines(load) }
}
