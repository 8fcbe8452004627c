//! The agent's own switches and folder trust, read from its files as its table entry describes them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hook_config::BridgeProgram;
use hook_types::{Agent, AgentFiles, AgentPath, FolderTrust, InstallScope, OffSwitch, OffWhen, Reach, TrustShape};
use serde_json::Value;

use super::{Finding, Place};
use crate::install::BRIDGE_NAME;

/// The files `path` names here: one file, or every `.json` file of a directory entry (`.github/hooks/*.json`) in the
/// byte order of their names. A home-relative path without a known home names nothing.
///
/// ```
/// use hook_agents::doctor::{Place, resolve};
/// use hook_types::AgentPath;
/// use std::path::Path;
/// let env = |_: &str| None;
/// let place = Place { workspace: Path::new("/ws"), home: None, env: &env, interactive: false, system_root: None };
/// assert_eq!(resolve(&AgentPath::Workspace(".claude/settings.json"), &place), [Path::new("/ws/.claude/settings.json")]);
/// assert!(resolve(&AgentPath::Home(".claude.json"), &place).is_empty());
/// ```
pub fn resolve(path: &AgentPath, place: &Place<'_>) -> Vec<PathBuf> {
    let base = match path {
        AgentPath::Workspace(p) => Some(place.workspace.join(p)),
        AgentPath::Home(p) => place.home.map(|home| home.join(p)),
        AgentPath::System(p) => Some(match place.system_root {
            Some(root) => root.join(p.trim_start_matches('/')),
            None => PathBuf::from(p),
        }),
        AgentPath::EnvDir { var, default, file } => {
            let dir = (place.env)(var).filter(|v| !v.is_empty()).map(PathBuf::from);
            dir.or_else(|| place.home.map(|home| home.join(default))).map(|dir| dir.join(file))
        }
    };
    let Some(base) = base else { return Vec::new() };
    let text = base.to_string_lossy().into_owned();
    match AgentFiles::json_dir(&text) {
        Some(dir) => json_files(Path::new(dir)),
        None => vec![base],
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The environment variables the agent's table entry says its files or trust depend on (`$CODEX_HOME`, a trusted
/// folders path, a variable that trusts the folder): what a probe run as the agent passes on.
///
/// ```
/// use hook_types::Protocol;
/// assert!(hook_agents::doctor::agent_variables(Protocol::Gemini.agent()).contains(&"GEMINI_CLI_TRUST_WORKSPACE"));
/// ```
pub fn agent_variables(agent: &Agent) -> Vec<&'static str> {
    let var = |path: &AgentPath| match path {
        AgentPath::EnvDir { var, .. } => Some(*var),
        _ => None,
    };
    let mut out: Vec<&'static str> = agent.switches.iter().flat_map(|s| s.files.iter().filter_map(var)).collect();
    if let Some(trust) = &agent.folder_trust {
        out.extend(var(&trust.store));
        out.extend(trust.store_env);
        out.extend(trust.env_trusts.iter().map(|(name, _)| *name));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A file read as the agent reads it: `None` when it does not exist; TOML by its extension, JSON otherwise (comments
/// allowed where the agent allows them).
fn read_document(path: &Path, json_comments: bool) -> Option<Result<Value, String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
        Err(err) => return Some(Err(err.to_string())),
    };
    if path.extension().is_some_and(|e| e == "toml") {
        return Some(toml::from_str::<Value>(&text).map_err(|e| e.to_string()));
    }
    let text = if json_comments { hook_config::strip_json_comments(&text) } else { text };
    Some(serde_json::from_str(&text).map_err(|e| e.to_string()))
}

/// The value under the dotted `key`.
fn lookup<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    key.split('.').try_fold(value, |value, part| value.get(part))
}

/// Every finding about the agent's own switches and folder trust. `installed` are the scopes the bridge is installed
/// in here (empty when none is recorded): what reaches only the workspace's hooks blocks a guard only where the bridge
/// sits in a workspace file, or where nothing says where it sits.
pub fn agent_findings(agent: &Agent, place: &Place<'_>, installed: &[InstallScope]) -> Vec<Finding> {
    let blocks = |reach: Reach| {
        reach == Reach::AllHooks || installed.is_empty() || installed.iter().any(|s| *s != InstallScope::User)
    };
    let mut out = Vec::new();
    for switch in agent.switches {
        out.extend(switch_findings(agent, switch, place));
    }
    if let Some(trust) = &agent.folder_trust {
        out.extend(trust_finding(agent, trust, place).map(|mut finding| {
            finding.blocks = finding.blocks && blocks(trust.reach);
            finding
        }));
    }
    out
}

/// The files of `switch` that turn hooks off, each a blocking finding; an unreadable one is a warning.
fn switch_findings(agent: &Agent, switch: &OffSwitch, place: &Place<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for file in switch.files.iter().flat_map(|path| resolve(path, place)) {
        let value = match read_document(&file, agent.json_comments) {
            None => continue,
            Some(Ok(value)) => value,
            Some(Err(err)) => {
                out.push(Finding::warning(
                    "unreadable_settings",
                    Some(file.clone()),
                    format!("{} cannot read this file ({err}), so whether it turns hooks off is unknown", agent.name),
                    "fix the file's syntax".into(),
                ));
                continue;
            }
        };
        let Some(found) = lookup(&value, switch.key) else { continue };
        let off = match switch.off_when {
            OffWhen::True => found == &Value::Bool(true),
            OffWhen::False => found == &Value::Bool(false),
            OffWhen::ListsBridge => lists_bridge(found),
        };
        if off {
            let shown =
                if switch.off_when == OffWhen::ListsBridge { "lists the bridge".into() } else { found.to_string() };
            out.push(Finding::blocker(
                switch.key,
                Some(file),
                format!("`{}` {shown}: {} {}, so it never calls the bridge", switch.key, agent.name, switch.effect),
                format!("remove `{}` from this file (or set it so hooks run)", switch.key),
            ));
        }
    }
    out
}

/// Whether a list names the bridge handler, by its `name` or its command.
fn lists_bridge(value: &Value) -> bool {
    let program = BridgeProgram::default();
    let names = value.as_array().into_iter().flatten().filter_map(Value::as_str);
    names.into_iter().any(|name| name == BRIDGE_NAME || program.invokes_bridge_line(name))
}

/// The folder-trust finding, if the agent would not trust the workspace.
fn trust_finding(agent: &Agent, trust: &FolderTrust, place: &Place<'_>) -> Option<Finding> {
    if trust.interactive_only && !place.interactive {
        return None;
    }
    let env_trusted = trust.env_trusts.iter().any(|(name, value)| (place.env)(name).is_some_and(|v| v == *value));
    if env_trusted || !trust_enabled(agent, trust, place) {
        return None;
    }
    let store = store_path(trust, place)?;
    let value = match read_document(&store, agent.json_comments) {
        Some(Ok(value)) => Some(value),
        None => None,
        Some(Err(err)) => {
            let message = format!("{} cannot read its trusted folders ({err}): it trusts no folder", agent.name);
            return Some(Finding::blocker("folder_trust", Some(store), message, "fix the file's syntax".into()));
        }
    };
    let workspace = hook_config::canonicalize(place.workspace).unwrap_or_else(|_| place.workspace.to_path_buf());
    if value.as_ref().is_some_and(|value| trusts(&trust.shape, value, &workspace)) {
        return None;
    }
    let reach = match trust.reach {
        Reach::AllHooks => "runs none of its hooks",
        Reach::ProjectHooks => "does not run the hooks of this workspace's files",
    };
    let when = if trust.interactive_only { " in an interactive session" } else { "" };
    Some(Finding::blocker(
        "folder_trust",
        Some(store),
        format!("{} does not trust {}, so it {reach} here{when}", agent.name, workspace.display()),
        trust.fix.into(),
    ))
}

/// The trusted-folders file: the one its variable names, else the table's.
fn store_path(trust: &FolderTrust, place: &Place<'_>) -> Option<PathBuf> {
    let named = trust.store_env.and_then(|var| (place.env)(var)).filter(|v: &OsString| !v.is_empty());
    named.map(PathBuf::from).or_else(|| resolve(&trust.store, place).into_iter().next())
}

/// Whether folder trust is on: the last settings file that says, else its default.
fn trust_enabled(agent: &Agent, trust: &FolderTrust, place: &Place<'_>) -> bool {
    let Some((key, default)) = trust.enabled_by else { return true };
    let mut enabled = default;
    for file in trust.setting_files.iter().flat_map(|path| resolve(path, place)) {
        if let Some(Ok(value)) = read_document(&file, agent.json_comments)
            && let Some(Value::Bool(set)) = lookup(&value, key)
        {
            enabled = *set;
        }
    }
    enabled
}

/// Whether the store `value` trusts `dir`.
fn trusts(shape: &TrustShape, value: &Value, dir: &Path) -> bool {
    match shape {
        TrustShape::PerDir { map, field, ancestors } => {
            let Some(Value::Object(dirs)) = lookup(value, map) else { return false };
            let wanted: Option<(&str, Value)> =
                field.map(|(name, json)| (name, serde_json::from_str(json).unwrap_or(Value::Null)));
            let holds = |entry: &Value| wanted.as_ref().is_none_or(|(name, want)| entry.get(*name) == Some(want));
            let candidates: Vec<&Path> = if *ancestors { dir.ancestors().collect() } else { vec![dir] };
            candidates.iter().any(|d| dirs.get(d.to_string_lossy().as_ref()).is_some_and(holds))
        }
        TrustShape::Levels => levels_trust(value, dir),
        TrustShape::List { key } => {
            let list = lookup(value, key).and_then(Value::as_array);
            list.into_iter().flatten().filter_map(Value::as_str).any(|entry| Path::new(entry) == dir)
        }
    }
}

/// Gemini CLI's and Qwen Code's rules: the longest rule path that holds `dir` decides (`TRUST_PARENT` holds its
/// parent's subtree), `DO_NOT_TRUST` distrusts.
fn levels_trust(value: &Value, dir: &Path) -> bool {
    let Some(rules) = value.as_object() else { return false };
    let mut best: Option<(usize, &str)> = None;
    for (path, level) in rules {
        let Some(level) = level.as_str() else { continue };
        let effective = if level == "TRUST_PARENT" { Path::new(path).parent() } else { Some(Path::new(path)) };
        let effective = effective.map(|p| hook_config::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
        if effective.is_some_and(|p| dir.starts_with(p)) && best.is_none_or(|(len, _)| path.len() > len) {
            best = Some((path.len(), level));
        }
    }
    matches!(best, Some((_, "TRUST_FOLDER" | "TRUST_PARENT")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The checks of the blocking findings for `agent` with `files` (relative to a root standing for `/`) written.
    fn blocking(agent: hook_types::Protocol, files: &[(&str, &str)]) -> Vec<&'static str> {
        let root = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let env = |_: &str| None;
        let ws = root.path().join("ws");
        let place = Place { workspace: &ws, home: None, env: &env, interactive: false, system_root: Some(root.path()) };
        agent_findings(agent.agent(), &place, &[]).into_iter().filter(|f| f.blocks).map(|f| f.check).collect()
    }

    #[test]
    fn a_machine_wide_policy_file_turns_hooks_off_too() {
        use hook_types::Protocol;
        let managed = "etc/claude-code/managed-settings.json";
        assert_eq!(
            blocking(Protocol::Claude, &[(managed, r#"{"allowManagedHooksOnly": true}"#)]),
            ["allowManagedHooksOnly"]
        );
        assert_eq!(blocking(Protocol::Claude, &[(managed, r#"{"disableAllHooks": true}"#)]), ["disableAllHooks"]);
        assert!(blocking(Protocol::Claude, &[(managed, r#"{"disableAllHooks": false}"#)]).is_empty());
        // Gemini CLI's system settings, with comments as it allows; its folder trust off there too.
        let system = "etc/gemini-cli/settings.json";
        let text = "{\n  // off\n  \"hooksConfig\": {\"enabled\": false},\n  \"security\": {\"folderTrust\": {\"enabled\": false}}\n}";
        assert_eq!(blocking(Protocol::Gemini, &[(system, text)]), ["hooksConfig.enabled"]);
    }

    #[test]
    fn the_longest_rule_decides_and_a_parent_rule_covers_its_siblings() {
        let rules = json!({"/a": "TRUST_FOLDER", "/a/b": "DO_NOT_TRUST", "/c/d": "TRUST_PARENT"});
        assert!(levels_trust(&rules, Path::new("/a/x")));
        assert!(!levels_trust(&rules, Path::new("/a/b/y")));
        assert!(levels_trust(&rules, Path::new("/c/e")));
        assert!(!levels_trust(&rules, Path::new("/z")));
    }

    #[test]
    fn a_directory_entry_trusts_by_its_field_and_its_ancestors_where_the_agent_says() {
        let shape =
            TrustShape::PerDir { map: "projects", field: Some(("trust_level", "\"trusted\"")), ancestors: true };
        let store = json!({"projects": {"/w": {"trust_level": "trusted"}, "/u": {"trust_level": "untrusted"}}});
        assert!(trusts(&shape, &store, Path::new("/w/sub")));
        assert!(!trusts(&shape, &store, Path::new("/u")));
        let exact = TrustShape::PerDir { map: "general.trustedFolders", field: None, ancestors: false };
        let store = json!({"general": {"trustedFolders": {"/w": {"trustedAt": "now"}}}});
        assert!(trusts(&exact, &store, Path::new("/w")) && !trusts(&exact, &store, Path::new("/w/sub")));
    }
}
