//! The bench's generated workspaces: the same hooks written as native snake_case files (`.hooks/`) or as
//! clio-coder's camelCase files (`.clio-coder/`), and the 20-hook workspace of the per-event rows.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

/// Which files a generated workspace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `.hooks/hooks.yaml` and `.hooks/hooks.local.yaml`, snake_case keys, canonical event names.
    Native,
    /// `.clio-coder/hooks.yaml` and `.clio-coder/hooks.local.yaml`, camelCase keys, clio-coder's event names: the
    /// files clio-coder's own `readHookSources` reads.
    Clio,
}

impl Shape {
    /// The row label.
    pub fn label(self) -> &'static str {
        match self {
            Shape::Native => "native",
            Shape::Clio => "clio-coder",
        }
    }
}

/// One hook, `i`-th of file `file`: a third each command (argv), prompt and effect, in both loaders' vocabulary, so
/// both load every one. Every tenth id repeats in the other file, so the merge has collisions to resolve.
fn hook(shape: Shape, file: usize, i: usize) -> String {
    let id = if i.is_multiple_of(10) { format!("shared-{i}") } else { format!("f{file}-h{i}") };
    // The same tools in each vocabulary: the canonical `shell`, clio-coder's `bash`.
    let (before, timeout, shell) = match shape {
        Shape::Native => ("pre_tool", "timeout_ms", "shell"),
        Shape::Clio => ("before_tool", "timeoutMs", "bash"),
    };
    match i % 3 {
        0 => format!(
            "- id: {id}\n  on: {before}\n  tools: [{shell}]\n  kind: command\n  argv: [./scripts/guard.sh, --strict, \"{i}\"]\n  {timeout}: 1500\n"
        ),
        1 => format!(
            "- id: {id}\n  on: turn_start\n  kind: prompt\n  message: \"Run the tests before you commit ({i}).\"\n"
        ),
        _ => format!(
            "- id: {id}\n  on: {before}\n  tools: [write]\n  kind: effect\n  effect: {{ kind: block_tool, reason: \"no writes here ({i})\", severity: hard-block }}\n"
        ),
    }
}

/// Writes a workspace of `total` hooks in `dir` (created), half in the committed file and half in the local one,
/// and the script the command hooks name.
pub fn workspace(dir: &Path, total: usize, shape: Shape) -> Result<()> {
    let hooks_dir = dir.join(match shape {
        Shape::Native => ".hooks",
        Shape::Clio => ".clio-coder",
    });
    fs::create_dir_all(&hooks_dir).with_context(|| format!("cannot create {}", hooks_dir.display()))?;
    fs::create_dir_all(dir.join("scripts"))?;
    let script = dir.join("scripts/guard.sh");
    fs::write(&script, "#!/bin/sh\nexit 0\n")?;
    fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    fs::create_dir_all(dir.join(".git"))?;
    for (file, name) in ["hooks.yaml", "hooks.local.yaml"].into_iter().enumerate() {
        let count = total / 2 + if file == 0 { total % 2 } else { 0 };
        let mut text = String::with_capacity(count * 140);
        for i in 0..count {
            text.push_str(&hook(shape, file, i));
        }
        fs::write(hooks_dir.join(name), text).with_context(|| format!("cannot write {name}"))?;
    }
    Ok(())
}

/// The per-event workspace: 20 native hooks, of which exactly one (a `/bin/true` command on `pre_tool` for the
/// shell tool) matches the bench's Claude Code `PreToolUse` of `Bash`; the others are on other events or tools.
pub fn event_workspace(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir.join(".hooks"))?;
    fs::create_dir_all(dir.join(".git"))?;
    let mut text = String::from(
        "- id: true-on-shell\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  argv: [/bin/true]\n  timeout_ms: 2000\n",
    );
    for i in 1..20 {
        text.push_str(&match i % 3 {
            0 => format!("- id: other-{i}\n  on: post_tool\n  tools: [shell]\n  kind: command\n  argv: [/bin/true]\n"),
            1 => format!("- id: other-{i}\n  on: turn_start\n  kind: prompt\n  message: \"Reminder {i}.\"\n"),
            _ => format!(
                "- id: other-{i}\n  on: pre_tool\n  tools: [write]\n  kind: effect\n  effect: {{ kind: block_tool, reason: \"no ({i})\" }}\n"
            ),
        });
    }
    fs::write(dir.join(".hooks/hooks.yaml"), text)?;
    Ok(())
}

/// The policy workspace: the one `kind: policy` hook of `examples/policy` (its Rego evaluated in the process on
/// every `pre_tool`), which the bench's Claude Code `PreToolUse` of `Bash` runs.
pub fn policy_workspace(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir.join(".hooks"))?;
    fs::create_dir_all(dir.join("policy"))?;
    fs::create_dir_all(dir.join(".git"))?;
    fs::write(dir.join(".hooks/hooks.yaml"), include_str!("../../../examples/policy/.hooks/hooks.yaml"))?;
    fs::write(dir.join("policy/hooks.rego"), include_str!("../../../examples/policy/policy/hooks.rego"))?;
    Ok(())
}

/// Claude Code's `PreToolUse` of `Bash` in `cwd`, as it writes it on the bridge's stdin.
pub fn claude_pre_tool(cwd: &Path) -> String {
    serde_json::json!({
        "session_id": "bench-session",
        "transcript_path": cwd.join("transcript.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": "ls", "description": "list" },
    })
    .to_string()
}
