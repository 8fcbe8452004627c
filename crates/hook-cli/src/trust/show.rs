//! What `hook trust` shows before it trusts: for each hook, where it comes from, exactly what it runs, the files
//! it names with their digests, and the fingerprint that will be recorded.

use std::path::Path;

use hook_config::{HookSpec, LoadedHook, Program, ShadowAttempt, TrustStatus, trust_value};
use hook_types::{HookKind, Origin};
use serde::Serialize;

use crate::context::display_path;
use crate::render::{Painter, Style, WIDTH, clean_line, clean_lines};

/// One hook as shown, with the value that confirming it records.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The hook's id.
    pub id: String,
    /// Where it was declared.
    pub origin: Origin,
    /// The declaring file.
    pub source: std::path::PathBuf,
    /// Its index there.
    pub index: usize,
    /// The canonical event.
    pub event: String,
    /// command, prompt or effect.
    pub kind: HookKind,
    /// untrusted or modified.
    pub status: TrustStatus,
    /// What it runs: `argv [...]`, `shell ...`, the prompt or the effect, as JSON-free text.
    pub runs: Vec<String>,
    /// The working directory and extra environment of a command hook.
    pub cwd: Option<String>,
    /// `NAME=value` lines.
    pub env: Vec<String>,
    /// The files the command names: (path, sha256).
    pub files: Vec<ShownFile>,
    /// The value the trust store records: the fingerprint, or the content hash of a hook that names no files.
    pub fingerprint: String,
    /// The hook of a trusted origin with the same id that trusting this one takes out of force.
    pub displaces: Option<Displaced>,
}

/// A hook a trust would take out of force: trusting a hook of the workspace that takes the id of a user or managed
/// hook lets it displace that one, which may be a guard.
#[derive(Debug, Clone, Serialize)]
pub struct Displaced {
    /// Its origin.
    pub origin: Origin,
    /// Its file.
    pub source: std::path::PathBuf,
    /// Its event.
    pub event: String,
    /// What it runs.
    pub runs: Vec<String>,
}

/// One file a command names.
#[derive(Debug, Clone, Serialize)]
pub struct ShownFile {
    /// The file, canonical.
    pub path: std::path::PathBuf,
    /// Its sha256 when shown.
    pub sha256: String,
}

impl Shown {
    /// What `hook` shows of `hook`.
    pub fn of(hook: &LoadedHook, shadowed: &[ShadowAttempt]) -> Shown {
        let decl = &hook.decl;
        let displaces = shadowed
            .iter()
            .find(|a| a.attempted.decl.id == decl.id && a.attempted.decl.source == decl.source)
            .map(|a| Displaced {
                origin: a.kept.decl.origin,
                source: a.kept.decl.source.clone(),
                event: a.kept.decl.event.to_string(),
                runs: runs_of(&a.kept.decl.spec).0,
            });
        let (runs, cwd, env) = runs_of(&decl.spec);
        Shown {
            id: decl.id.clone(),
            origin: decl.origin,
            source: decl.source.clone(),
            index: decl.index,
            event: decl.event.to_string(),
            kind: decl.kind(),
            status: hook.trust,
            runs,
            cwd,
            env,
            files: hook
                .fingerprint
                .iter()
                .flat_map(|fp| fp.files.iter())
                .map(|f| ShownFile { path: f.path.clone(), sha256: f.sha256.clone() })
                .collect(),
            fingerprint: trust_value(decl, hook.fingerprint.as_ref()).to_owned(),
            displaces,
        }
    }
}

/// A command line as shown: `shell` (or `powershell`) and its first line, the others indented beneath.
fn line_runs(runner: &str, text: &str) -> Vec<String> {
    let mut lines = clean_lines(text).into_iter();
    let first = lines.next().unwrap_or_default();
    let indent = " ".repeat(runner.len() + 1);
    std::iter::once(format!("{runner} {first}")).chain(lines.map(|l| format!("{indent}{l}"))).collect()
}

/// What a declaration runs, its working directory and its extra environment, as shown.
fn runs_of(spec: &HookSpec) -> (Vec<String>, Option<String>, Vec<String>) {
    {
        match spec {
            HookSpec::Command(spec) => {
                let runs = match &spec.program {
                    Program::Argv(argv) => vec![format!("argv {}", serde_json::to_string(argv).unwrap_or_default())],
                    Program::Shell(text) => line_runs("shell", text),
                    Program::PowerShell(text) => line_runs("powershell", text),
                };
                let env = spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                (runs, Some(spec.cwd.clone()), env)
            }
            HookSpec::Prompt { message, .. } => (vec![format!("prompt {}", clean_line(message))], None, Vec::new()),
            HookSpec::Effect(effect) => {
                (vec![format!("effect {}", serde_json::to_string(effect).unwrap_or_default())], None, Vec::new())
            }
            HookSpec::Evaluated(evaluated) => {
                let mut lines = clean_lines(&evaluated.prompt).into_iter();
                let first = lines.next().unwrap_or_default();
                let runs = std::iter::once(format!("evaluated {first}")).chain(lines.map(|l| format!("          {l}")));
                (runs.collect(), None, Vec::new())
            }
            // Header names and the variables they read; never a header's value.
            HookSpec::Http(http) => {
                let runs = vec![format!("http {} {} ({})", http.method, http.url, http.format.as_str())];
                let headers = http
                    .header_vars()
                    .into_iter()
                    .map(|(name, vars)| {
                        let vars: Vec<String> = vars.iter().map(|v| format!("${v}")).collect();
                        if vars.is_empty() {
                            format!("header {name}")
                        } else {
                            format!("header {name} reads {}", vars.join(", "))
                        }
                    })
                    .collect();
                (runs, None, headers)
            }
            HookSpec::Policy(policy) => {
                (vec![format!("policy {} over {}", policy.query, policy.files.join(", "))], None, Vec::new())
            }
        }
    }
}

impl Shown {
    /// The block of text for one hook, within 80 columns except for long paths and commands, which are shown
    /// whole: a reviewer must see all of what will run.
    pub fn render(&self, workspace: &Path, painter: &Painter) -> String {
        let mut out = String::new();
        let status = match self.status {
            TrustStatus::Modified => "modified: what it runs changed since it was trusted",
            _ => "untrusted",
        };
        let title = format!("── {} ", clean_line(&self.id));
        let rule = "─".repeat(WIDTH.saturating_sub(title.chars().count() + status.chars().count() + 1));
        let style = if self.status == TrustStatus::Modified { Style::Red } else { Style::Yellow };
        out.push_str(&format!("{}{rule} {}\n", painter.paint(Style::Bold, &title), painter.paint(style, status)));
        let mut field = |name: &str, value: &str| out.push_str(&format!("  {name:<12} {value}\n"));
        field("origin", &format!("{} {} [{}]", self.origin, display_path(&self.source), self.index));
        field("event", &format!("{} ({})", self.event, self.kind.as_str()));
        for (i, line) in self.runs.iter().enumerate() {
            field(if i == 0 { "runs" } else { "" }, &clean_line(line));
        }
        if let Some(cwd) = &self.cwd {
            field("cwd", &clean_line(cwd));
        }
        for (i, var) in self.env.iter().enumerate() {
            field(if i == 0 { "env" } else { "" }, &clean_line(var));
        }
        if self.kind == HookKind::Command && self.files.is_empty() {
            field("files", "none under the workspace (only the declaration is pinned)");
        }
        for (i, file) in self.files.iter().enumerate() {
            let path = file.path.strip_prefix(workspace).unwrap_or(&file.path);
            let digest = file.sha256.get(..16).unwrap_or(&file.sha256);
            field(if i == 0 { "files" } else { "" }, &format!("{digest}  {}", clean_line(&path.display().to_string())));
        }
        let label = if self.files.is_empty() && self.kind != HookKind::Command { "hash" } else { "fingerprint" };
        field(label, &self.fingerprint);
        if let Some(d) = &self.displaces {
            let what = d.runs.first().map(|r| clean_line(r)).unwrap_or_default();
            let line = format!(
                "the {} hook of the same id in {} ({}: {what}); trusting this one takes it out of force",
                d.origin,
                display_path(&d.source),
                clean_line(&d.event)
            );
            out.push_str(&format!("  {:<12} {}\n", "displaces", painter.paint(Style::Red, &line)));
        }
        out
    }
}
