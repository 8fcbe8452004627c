//! Uninstall: undoing install records, newest first.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::InstallError;
use super::agent::{Agent, InstallScope};
use super::edit::{remove_bridge, restore_handlers};
use super::files::{
    Confine, JsonLayout, parse_json_object, read_text, remove, remove_empty_dirs, remove_file, replace, scope_confines,
    sha256,
};
use super::record::{FileChange, InstallRecord, LockedInstalls, TrustedRecord, installs_path};
use hook_config::BridgeProgram;
use hook_config::Layout;
use hook_config::TrustStore;

/// What [`uninstall`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UninstallReport {
    /// How many install records were undone.
    pub records: usize,
    /// Files given back their exact original content (or removed, where install created them).
    pub restored: Vec<PathBuf>,
    /// Files changed since install, edited back structurally.
    pub edited: Vec<PathBuf>,
    /// Hook ids whose trust install had recorded and uninstall revoked.
    pub revoked: Vec<String>,
    /// What could not be undone, one line each.
    pub warnings: Vec<String>,
}

/// Undoes every install of `agent` in `scope` (of this workspace, for the local and project scopes), newest first,
/// and removes their records. Nothing recorded is not an error: the report says no record was undone.
///
/// # Errors
/// No config home; `installs.json` unreadable; a file that cannot be read or written.
pub fn uninstall(agent: Agent, scope: InstallScope, layout: &Layout) -> Result<UninstallReport, InstallError> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let path = installs_path(layout).map(|p| absolute(&p)).ok_or(InstallError::Unknown {
        what: "the config home",
        hint: "pass --config-home DIR (the one install used)",
    })?;
    let workspace = std::fs::canonicalize(&layout.workspace).ok();
    let trust_store = layout.config_home_path().map(|home| absolute(home).join(hook_config::TRUST_STORE_FILE));
    // The records stay locked for the whole run: an install finishing meanwhile waits, and keeps its record.
    let mut locked = LockedInstalls::open(&path)?;
    let mut report = UninstallReport::default();
    let program = BridgeProgram::default();
    while let Some(at) = locked.installs.installs.iter().rposition(|r| r.is_for(agent, scope, workspace.as_deref())) {
        let record = locked.installs.installs[at].clone();
        let config_home = layout.config_home_path().map(absolute).unwrap_or_default();
        let record_workspace = record.workspace.clone().unwrap_or_default();
        let confines = scope_confines(record.scope, &record_workspace, layout.home.as_deref(), &config_home)?;
        undo(&record, &confines, trust_store.as_deref(), &program, &mut report)?;
        locked.installs.installs.remove(at);
        locked.save()?;
        report.records += 1;
    }
    Ok(report)
}

fn undo(
    record: &InstallRecord,
    (agent_confine, native_confine): &(Confine, Confine),
    trust_store: Option<&Path>,
    program: &BridgeProgram,
    report: &mut UninstallReport,
) -> Result<(), InstallError> {
    // The agent's file first: once it is back, the agent runs its own hooks again and the bridge no more.
    let agent_file = &record.agent_file;
    if let Some(change) = &record.executables {
        // An agent of one executable per event: its directory, not a file, was changed.
        super::executables::undo(change, &mut report.restored, &mut report.warnings);
    } else {
        undo_agent_file(record, agent_confine, program, report)?;
    }
    let _ = agent_file;
    undo_rest(record, native_confine, trust_store, report)
}

/// Undoes install's rewrite of the agent's settings file.
fn undo_agent_file(
    record: &InstallRecord,
    agent_confine: &Confine,
    program: &BridgeProgram,
    report: &mut UninstallReport,
) -> Result<(), InstallError> {
    let agent_file = &record.agent_file;
    let agent_real = agent_confine.resolve(&agent_file.path)?;
    if restore_exactly(agent_file, agent_confine)? {
        report.restored.push(agent_file.path.clone());
    } else if let Some(text) = read_text(&agent_real)? {
        let mut root = parse_json_object(&agent_file.path, Some(&text))?;
        let mut hooks = match root.get("hooks") {
            Some(Value::Object(hooks)) => hooks.clone(),
            _ => serde_json::Map::new(),
        };
        super::handlers::check_shapes(record.agent, &agent_file.path, &hooks)?;
        restore_handlers(record.agent, &mut hooks, &record.moved, program);
        remove_bridge(record.agent, &mut hooks, &record.added_events, program);
        let original = parse_json_object(&agent_file.path, record.agent_file.original.as_deref()).unwrap_or_default();
        let had_hooks = original.contains_key("hooks");
        if hooks.is_empty() && !had_hooks {
            root.shift_remove("hooks");
        } else {
            root.insert("hooks".into(), Value::Object(hooks));
        }
        replace(&agent_file.path, &agent_real, Some(&text), &JsonLayout::of(&text).write(&Value::Object(root)))?;
        report.edited.push(agent_file.path.clone());
    } else if !record.moved.is_empty() {
        report.warnings.push(format!(
            "`{}` is gone: the {} moved hook(s) stay in the native file",
            agent_file.path.display(),
            record.moved.len()
        ));
    }

    Ok(())
}

/// Undoes what install changed beside the agent's own file: the agent's hook trust, the native file, the trust store.
fn undo_rest(
    record: &InstallRecord,
    native_confine: &Confine,
    trust_store: Option<&Path>,
    report: &mut UninstallReport,
) -> Result<(), InstallError> {
    if let Some(change) = &record.agent_trust {
        super::agent_trust::undo(change)?;
        report.edited.push(change.file.clone());
    }

    if let Some(native) = &record.native_file {
        let native_real = native_confine.resolve(&native.file.path)?;
        if restore_exactly(&native.file, native_confine)? {
            report.restored.push(native.file.path.clone());
        } else {
            match read_text(&native_real)? {
                Some(text) if text.contains(&native.block) => {
                    replace(&native.file.path, &native_real, Some(&text), &text.replacen(&native.block, "", 1))?;
                    report.edited.push(native.file.path.clone());
                }
                _ => report.warnings.push(format!(
                    "the moved hooks in `{}` were edited since install and are left there; remove them by hand if \
                     the agent's own copies are enough",
                    native.file.path.display()
                )),
            }
        }
    }
    if let Some(workspace) = &record.workspace {
        report.revoked.extend(revoke(trust_store, workspace, &record.trusted, record.trust_store_created));
    } else {
        // The user scope's hooks needed no trust (a trusted origin): nothing was recorded.
        debug_assert!(record.trusted.is_empty());
    }
    Ok(())
}

/// Puts a file back exactly as it was, if it still holds exactly what install wrote: the original text, or no file
/// (and none of the directories install created for it). Returns whether it did. The file must stay inside
/// `confine`, and the swap is a compare-and-swap against what was read here.
pub(crate) fn restore_exactly(change: &FileChange, confine: &Confine) -> Result<bool, InstallError> {
    let real = confine.resolve(&change.path)?;
    let Some(current) = read_text(&real)?.filter(|text| sha256(text) == change.written_sha256) else {
        return Ok(false);
    };
    match &change.original {
        Some(original) => {
            replace(&change.path, &real, Some(&current), original)?;
        }
        None => {
            remove(&change.path, &real, &current)?;
            remove_empty_dirs(&change.created_dirs);
        }
    }
    Ok(true)
}

/// Revokes the trust install recorded, where the store still holds exactly that fingerprint (a trust the user gave
/// again since is theirs). A store install created and that is now empty is removed. Returns the ids revoked.
pub(crate) fn revoke(store: Option<&Path>, workspace: &Path, trusted: &[TrustedRecord], created: bool) -> Vec<String> {
    let Some(path) = store.filter(|_| !trusted.is_empty()) else { return Vec::new() };
    // Under the store's lock: a concurrent `hook trust` or install loses no entry.
    let updated = TrustStore::update(path, |store| {
        let mut revoked = Vec::new();
        for record in trusted {
            if store.trusted_fingerprint(workspace, &record.id) == Some(record.fingerprint.as_str()) {
                store.revoke(workspace, &record.id);
                revoked.push(record.id.clone());
            }
        }
        revoked
    });
    let Ok((revoked, _)) = updated else { return Vec::new() };
    if created && store_is_empty(path) {
        let _ = remove_file(path);
    }
    revoked
}

/// Whether the store at `path` trusts nothing in any workspace.
fn store_is_empty(path: &Path) -> bool {
    let text = read_text(path).ok().flatten().unwrap_or_default();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    value.get("workspaces").and_then(Value::as_object).is_some_and(serde_json::Map::is_empty)
}
