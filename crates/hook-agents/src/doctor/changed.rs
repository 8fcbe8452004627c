//! Agent files changed since `hook install` wrote them, by something other than the engine: the install record keeps
//! the digest of the text it wrote, and the bridge entries it put under each event.

use std::path::Path;

use hook_types::{InstallScope, Limits};

use super::{Finding, bridge_entries};
use crate::install::{Agent, InstallRecord, Installs, guarded_command, sha256};

/// A warning for each recorded install of `agent` (for `workspace`, or of the user scope) whose file no longer holds
/// the text install wrote, with how its bridge entries differ from those written (`-` written, `+` there now).
///
/// ```
/// use hook_agents::doctor::changed_since_install;
/// use hook_agents::install::Installs;
/// use hook_types::Protocol;
/// let none = Installs { version: 1, installs: vec![] };
/// assert!(changed_since_install(&none, Protocol::Claude, std::path::Path::new("/ws")).is_empty());
/// ```
pub fn changed_since_install(installs: &Installs, agent: Agent, workspace: &Path) -> Vec<Finding> {
    let canonical = hook_config::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    installs
        .installs
        .iter()
        .filter(|r| r.agent == agent)
        .filter(|r| r.scope == InstallScope::User || r.workspace.as_deref() == Some(canonical.as_path()))
        .filter_map(changed)
        .collect()
}

fn changed(record: &InstallRecord) -> Option<Finding> {
    let change = &record.agent_file;
    // An agent of one executable per event records its directory, which has no digest of its own.
    if change.written_sha256.is_empty() || change.path.is_dir() {
        return None;
    }
    let now = match std::fs::read_to_string(&change.path) {
        Ok(text) if sha256(&text) == change.written_sha256 => return None,
        Ok(_) => "changed",
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => "deleted",
        Err(_) => "unreadable",
    };
    let diff = entry_diff(record);
    let entries = if diff.is_empty() {
        "its bridge entries are as installed".to_owned()
    } else {
        format!("its bridge entries differ from those written:\n{}", diff.join("\n"))
    };
    Some(Finding::warning(
        "changed_since_install",
        Some(change.path.clone()),
        format!(
            "{} ({} scope) was {now} since `hook install` wrote it, outside the engine; {entries}",
            change.path.display(),
            record.scope
        ),
        format!(
            "review the change; `hook install --agent {} --scope {}` writes the bridge entries again",
            record.agent, record.scope
        ),
    ))
}

/// The bridge entries written under each event against those the file holds now.
fn entry_diff(record: &InstallRecord) -> Vec<String> {
    let now = bridge_entries(record.agent, record.scope, &record.agent_file.path, None).unwrap_or_default();
    let mut out = Vec::new();
    for event in &record.added_events {
        let current = now.iter().find(|e| e.event == event.as_str()).and_then(|e| e.command.as_deref());
        let written = guarded_command(record.agent, event, &record.command, &Limits::default());
        if current == Some(written.as_str()) {
            continue;
        }
        out.push(format!("  - {event}: {written}"));
        out.push(match current {
            Some(line) => format!("  + {event}: {line}"),
            None => format!("  + {event}: (no bridge entry)"),
        });
    }
    out
}
