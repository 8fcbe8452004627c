//! An agent's own trust of the hooks in its files, kept working through an install.
//!
//! Codex runs a hook of its `hooks.json` only when its state file (`$CODEX_HOME/config.toml`, default
//! `~/.codex/config.toml`) holds, under `[hooks.state."<file>:<event>:<group>:<handler>"]`, a `trusted_hash` equal to
//! the handler's current hash (codex-rs/hooks, `command_hook_hash`): sha256 over the canonical JSON of
//! `{event_name, matcher, hooks: [{type, command, timeout, async, statusMessage}]}`, the event in snake_case, the
//! timeout 600 when absent, absent options left out, and no matcher on the events that take none. Trust is keyed by
//! position, so a handler that moves — or a bridge that takes the place of a moved hook — reads as untrusted or
//! modified, and Codex skips it in silence.
//!
//! So install, after the same confirmation as for the moved hooks, writes the current hash for every bridge entry it
//! wrote and for every handler that Codex trusted before install and that now sits at another position; it records
//! each key with its previous value, and uninstall puts those back. The rest of the state file is kept byte for byte
//! (toml_edit).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use hook_config::BridgeProgram;

use super::InstallError;
use super::agent::Agent;
use super::handlers::{handlers, is_bridge};

/// What install changes in an agent's own hook trust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentTrustChange {
    /// The agent's state file.
    pub file: PathBuf,
    /// Its text before install; `None` when install created it.
    pub original: Option<String>,
    /// The text install wrote.
    pub written: String,
    /// Each key install set, with the hash it held before (`None`: no entry).
    pub entries: Vec<AgentTrustEntry>,
}

/// One handler's trust as install set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentTrustEntry {
    /// The agent's key for the handler.
    pub key: String,
    /// The `trusted_hash` it had before install.
    pub previous: Option<String>,
    /// The `trusted_hash` install wrote.
    pub written: String,
}

/// The default state file of an agent that keeps per-hook trust: `$CODEX_HOME/config.toml`, else
/// `<home>/.codex/config.toml`. `None` for an agent without such trust.
pub fn agent_state_file(agent: Agent, codex_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    (agent == Agent::Codex).then(|| {
        codex_home.map(Path::to_path_buf).or_else(|| home.map(|h| h.join(".codex"))).map(|d| d.join("config.toml"))
    })?
}

/// [`agent_state_file`] with the directory the agent's own variable names in this process's environment (an
/// absolute `$CODEX_HOME`), as `hook install` and `hook doctor` find it.
///
/// ```
/// use hook_agents::install::{Agent, agent_state_file_here};
/// assert_eq!(agent_state_file_here(Agent::Claude, Some(std::path::Path::new("/home/u"))), None);
/// ```
pub fn agent_state_file_here(agent: Agent, home: Option<&Path>) -> Option<PathBuf> {
    let dir = std::env::var_os("CODEX_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
    agent_state_file(agent, dir.as_deref(), home)
}

/// Plans the trust edit for the agent file `agent_file` going from `old` to `new` (its `hooks` objects).
pub(crate) fn plan(
    agent: Agent,
    state_file: &Path,
    agent_file: &Path,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    program: &BridgeProgram,
) -> Result<Option<AgentTrustChange>, InstallError> {
    if agent != Agent::Codex {
        return Ok(None);
    }
    let original = super::files::read_text(state_file)?;
    let mut doc: toml_edit::DocumentMut = original.as_deref().unwrap_or("").parse().map_err(|e| {
        InstallError::Unsupported { path: state_file.to_path_buf(), message: format!("not valid TOML ({e})") }
    })?;
    let trusted_before: Vec<String> = keyed(agent_file, agent, old)
        .into_iter()
        .filter(|(key, hash, _)| trusted_hash(&doc, key).as_deref() == Some(hash.as_str()))
        .map(|(_, hash, _)| hash)
        .collect();
    let mut entries = Vec::new();
    for (key, hash, handler) in keyed(agent_file, agent, new) {
        let wanted = is_bridge(&handler, program) || trusted_before.contains(&hash);
        let previous = trusted_hash(&doc, &key);
        if wanted && previous.as_deref() != Some(hash.as_str()) {
            set_trusted_hash(&mut doc, &key, &hash, state_file)?;
            entries.push(AgentTrustEntry { key, previous, written: hash });
        }
    }
    if entries.is_empty() {
        return Ok(None);
    }
    Ok(Some(AgentTrustChange { file: state_file.to_path_buf(), original, written: doc.to_string(), entries }))
}

/// Undoes `change`: the original text while the file is still as install wrote it, else each key put back to what
/// it held where it still holds what install wrote.
pub(crate) fn undo(change: &AgentTrustChange) -> Result<(), InstallError> {
    let current = super::files::read_text(&change.file)?;
    if current.as_deref() == Some(change.written.as_str()) {
        return match &change.original {
            Some(text) => super::files::write_atomic(&change.file, text).map(|_| ()),
            None => std::fs::remove_file(&change.file).map_err(|source| InstallError::Io {
                action: "cannot remove",
                path: change.file.clone(),
                source,
            }),
        };
    }
    let Some(current) = current else { return Ok(()) };
    let Ok(mut doc) = current.parse::<toml_edit::DocumentMut>() else { return Ok(()) };
    let mut changed = false;
    for entry in &change.entries {
        if trusted_hash(&doc, &entry.key).as_deref() != Some(entry.written.as_str()) {
            continue;
        }
        changed = true;
        match &entry.previous {
            Some(previous) => set_trusted_hash(&mut doc, &entry.key, previous, &change.file)?,
            None => {
                if let Some(state) =
                    doc.get_mut("hooks").and_then(|h| h.get_mut("state")).and_then(|s| s.as_table_like_mut())
                {
                    state.remove(&entry.key);
                }
            }
        }
    }
    if changed {
        super::files::write_atomic(&change.file, &doc.to_string())?;
    }
    Ok(())
}

/// The bridge handlers of `hooks` (the agent file `agent_file`'s) that the agent's state file does not trust at their
/// current hash, each with its key: the agent skips them in silence. Empty for an agent without per-hook trust.
pub(crate) fn untrusted_bridges(
    agent: Agent,
    state_file: &Path,
    agent_file: &Path,
    hooks: &Map<String, Value>,
    program: &BridgeProgram,
) -> Vec<String> {
    if agent != Agent::Codex {
        return Vec::new();
    }
    let text = super::files::read_text(state_file).ok().flatten().unwrap_or_default();
    let doc: toml_edit::DocumentMut = text.parse().unwrap_or_default();
    keyed(agent_file, agent, hooks)
        .into_iter()
        .filter(|(key, hash, handler)| {
            is_bridge(handler, program) && trusted_hash(&doc, key).as_deref() != Some(hash.as_str())
        })
        .map(|(key, _, _)| key)
        .collect()
}

/// Every command handler of `hooks` with the key the agent trusts it by and its current hash.
fn keyed(agent_file: &Path, agent: Agent, hooks: &Map<String, Value>) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for handler in handlers(agent, hooks) {
        if handler.value.get("type").and_then(Value::as_str) != Some("command") {
            continue;
        }
        let label = snake_case(&handler.event);
        let key = trust_key(agent_file, &handler);
        let matcher = handler.group_keys.get("matcher").and_then(Value::as_str);
        out.push((key, codex_hook_hash(&label, matcher, &handler.value), handler.value));
    }
    out
}

/// The key the agent trusts `handler` of `agent_file` by: `<file>:<event label>:<group>:<index>`.
pub(crate) fn trust_key(agent_file: &Path, handler: &super::handlers::Handler) -> String {
    let label = snake_case(&handler.event);
    format!("{}:{label}:{}:{}", agent_file.display(), handler.group.unwrap_or(0), handler.index)
}

/// Codex's label of an event: its name in snake_case (`PreToolUse` → `pre_tool_use`).
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The hash Codex trusts a command handler by (see the module docs).
///
/// ```
/// let handler = serde_json::json!({"type": "command", "command": "hook bridge --protocol codex", "timeout": 66});
/// let hash = hook_agents::install::codex_hook_hash("pre_tool_use", None, &handler);
/// assert!(hash.starts_with("sha256:") && hash.len() == 71);
/// ```
pub fn codex_hook_hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    let timeout = handler.get("timeout").and_then(Value::as_u64).unwrap_or(600).max(1);
    let mut normalized = json!({
        "type": "command",
        "command": handler.get("command").cloned().unwrap_or(Value::Null),
        "timeout": timeout,
        "async": handler.get("async").and_then(Value::as_bool).unwrap_or(false),
    });
    if let Some(message) = handler.get("statusMessage").and_then(Value::as_str) {
        normalized["statusMessage"] = json!(message);
    }
    let mut identity = json!({"event_name": label, "hooks": [normalized]});
    if let Some(matcher) = matcher.filter(|_| !matches!(label, "user_prompt_submit" | "stop")) {
        identity["matcher"] = json!(matcher);
    }
    format!("sha256:{}", hex::encode(Sha256::digest(canonical(&identity).to_string().as_bytes())))
}

/// `value` with every object's keys sorted (serde_json keeps insertion order in this workspace).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), canonical(&map[k]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A table written only through its subtables' headers (`[hooks.state."…"]`, no `[hooks]` line of its own).
fn implicit_table() -> toml_edit::Item {
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    toml_edit::Item::Table(table)
}

fn trusted_hash(doc: &toml_edit::DocumentMut, key: &str) -> Option<String> {
    doc.get("hooks")?.get("state")?.get(key)?.get("trusted_hash")?.as_str().map(str::to_owned)
}

fn set_trusted_hash(doc: &mut toml_edit::DocumentMut, key: &str, hash: &str, file: &Path) -> Result<(), InstallError> {
    let shape = |what: &str| InstallError::Unsupported {
        path: file.to_path_buf(),
        message: format!("`{what}` is not a table, so the bridge's trust cannot be recorded"),
    };
    let hooks = doc.entry("hooks").or_insert(implicit_table());
    let state = hooks.as_table_like_mut().ok_or_else(|| shape("hooks"))?.entry("state").or_insert(implicit_table());
    let state = state.as_table_like_mut().ok_or_else(|| shape("hooks.state"))?;
    let entry = state.entry(key).or_insert(toml_edit::table());
    let entry = entry.as_table_like_mut().ok_or_else(|| shape("hooks.state entry"))?;
    entry.insert("trusted_hash", toml_edit::value(hash));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_labels_are_codexs_snake_case() {
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("Stop"), "stop");
    }

    #[test]
    fn a_bridge_in_a_moved_hooks_place_is_trusted_and_undo_restores_the_state_file() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("config.toml");
        let file = dir.path().join("hooks.json");
        let old_handler = json!({"type": "command", "command": "./guard.sh"});
        let old: Map<String, Value> =
            serde_json::from_value(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [old_handler.clone()]}]}))
                .unwrap();
        let key = format!("{}:pre_tool_use:0:0", file.display());
        let original = format!(
            "model = \"x\"\n\n[hooks.state.\"{key}\"]\ntrusted_hash = \"{}\"\n",
            codex_hook_hash("pre_tool_use", Some("Bash"), &old_handler)
        );
        std::fs::write(&state, &original).unwrap();
        let bridge = json!({"type": "command", "command": "hook bridge --protocol codex", "timeout": 66});
        let new: Map<String, Value> =
            serde_json::from_value(json!({"PreToolUse": [{"hooks": [bridge.clone()]}]})).unwrap();
        let program = BridgeProgram::named(["hook"]);
        let change = plan(Agent::Codex, &state, &file, &old, &new, &program).unwrap().unwrap();
        assert_eq!(change.entries.len(), 1);
        assert_eq!(change.entries[0].written, codex_hook_hash("pre_tool_use", None, &bridge));
        assert!(change.written.starts_with("model = \"x\"\n"), "{}", change.written);
        super::super::files::write_atomic(&state, &change.written).unwrap();
        undo(&change).unwrap();
        assert_eq!(std::fs::read_to_string(&state).unwrap(), original);
    }
}
