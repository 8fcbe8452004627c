//! `cargo xtask plugins [--check]`: the agents' own plugin packages of the bridge, under `plugins/`, and the
//! marketplace files that list them at the repository's root, written from the agent table and from what `hook
//! install` writes ([`hook_agents::install::AgentInstall::bridge_entry_for`]: on each gate event the fail-closed
//! wrapper around `hook bridge --protocol <agent>`, with the agent-side timeout), so that a plugin runs exactly
//! the handlers an install would. `--check` fails when a committed file differs from what would be written (a unit
//! test runs it).
//!
//! - Claude Code: `plugins/claude/.claude-plugin/plugin.json` and `hooks/hooks.json`, listed by
//!   `.claude-plugin/marketplace.json` (`claude plugin marketplace add <repo>`, then `claude plugin install
//!   hook@hook-engine`), or loaded for one session with `claude --plugin-dir plugins/claude`.
//! - Gemini CLI: the extension `plugins/gemini/` (`gemini-extension.json` and `hooks/hooks.json`;
//!   `gemini extensions install <repo>/plugins/gemini`).
//! - Codex: `plugins/codex/.codex-plugin/plugin.json` and its default `hooks/hooks.json`, listed by
//!   `.agents/plugins/marketplace.json` (`codex plugin marketplace add <repo>`, then `codex plugin add
//!   hook@hook-engine`).
//!
//! Every plugin needs `hook` on the PATH the agent gives its hooks (an npm, pip or binstall install): where it is
//! missing, the wrapper blocks each gated call and says so, as an install's does.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hook_agents::install::{Agent, AgentInstall};
use hook_types::Limits;
use serde_json::{Map, Value, json};

/// The marketplace's name, in `<plugin>@<marketplace>`.
pub const MARKETPLACE: &str = "hook-engine";
/// Each plugin's name.
pub const PLUGIN: &str = "hook";

const DESCRIPTION: &str = "Runs your .hooks/ hooks (and every other origin the hook engine reads) at each of the \
                           agent's events through `hook bridge`, failing closed on gates when it cannot answer.";

/// `cargo xtask plugins [--check]`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask plugins [--check]"),
    };
    let version = workspace_version(root)?;
    let mut stale = Vec::new();
    for (path, text) in files(&version) {
        let at = root.join(&path);
        let now = std::fs::read_to_string(&at).ok();
        if now.as_deref() == Some(text.as_str()) {
            continue;
        }
        if check {
            stale.push(path.display().to_string());
            continue;
        }
        std::fs::create_dir_all(at.parent().context("a plugin file has no directory")?)?;
        std::fs::write(&at, text).with_context(|| format!("cannot write {}", at.display()))?;
        println!("wrote {}", path.display());
    }
    if !stale.is_empty() {
        bail!("not as `cargo xtask plugins` writes them (run it): {}", stale.join(", "));
    }
    Ok(())
}

/// The workspace's version, from the root manifest.
fn workspace_version(root: &Path) -> Result<String> {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml"))?)?;
    manifest["workspace"]["package"]["version"].as_str().map(str::to_owned).context("no workspace.package.version")
}

/// Every file, by its path from the repository root.
pub fn files(version: &str) -> Vec<(PathBuf, String)> {
    let limits = Limits::default();
    let author = json!({"name": "The hooks contributors"});
    let mut files = vec![
        (
            PathBuf::from(".claude-plugin/marketplace.json"),
            json!({
                "name": MARKETPLACE,
                "owner": author,
                "description": "The hook engine's plugin: your hooks, run by the engine at each Claude Code event.",
                "plugins": [{"name": PLUGIN, "source": "./plugins/claude", "description": DESCRIPTION, "version": version}],
            }),
        ),
        (
            PathBuf::from("plugins/claude/.claude-plugin/plugin.json"),
            json!({"name": PLUGIN, "version": version, "description": DESCRIPTION, "author": author,
                   "license": "MIT OR Apache-2.0", "keywords": ["hooks", "guard", "policy"]}),
        ),
        (PathBuf::from("plugins/claude/hooks/hooks.json"), hooks(Agent::Claude, &limits)),
        (
            PathBuf::from("plugins/gemini/gemini-extension.json"),
            json!({"name": PLUGIN, "version": version, "description": DESCRIPTION}),
        ),
        (PathBuf::from("plugins/gemini/hooks/hooks.json"), hooks(Agent::Gemini, &limits)),
        (
            PathBuf::from(".agents/plugins/marketplace.json"),
            json!({
                "name": MARKETPLACE,
                "plugins": [{"name": PLUGIN, "source": {"source": "local", "path": "./plugins/codex"}}],
            }),
        ),
        (
            PathBuf::from("plugins/codex/.codex-plugin/plugin.json"),
            json!({"name": PLUGIN, "version": version, "description": DESCRIPTION, "author": author,
                   "license": "MIT OR Apache-2.0"}),
        ),
        (PathBuf::from("plugins/codex/hooks/hooks.json"), hooks(Agent::Codex, &limits)),
    ];
    files
        .drain(..)
        .map(|(path, value)| {
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            (path, text)
        })
        .collect()
}

/// The `hooks` file of `agent`'s plugin: on each event `hook install` writes, the entry it writes there, running
/// `hook bridge --protocol <agent>` from PATH.
pub fn hooks(agent: Agent, limits: &Limits) -> Value {
    let command = format!("hook bridge --protocol {}", agent.as_str());
    let events: Map<String, Value> = agent
        .install_events()
        .into_iter()
        .map(|event| (event.to_owned(), json!([agent.bridge_entry_for(event, &command, limits)])))
        .collect();
    json!({"description": format!("The hook engine's bridge on every {} event", agent.display_name()), "hooks": events})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
    }

    #[test]
    fn the_committed_plugins_are_as_generated() {
        run(&["--check".to_owned()], &root()).unwrap();
    }

    #[test]
    fn each_plugin_guards_the_gate_with_the_fail_closed_wrapper_and_observes_with_the_bare_bridge() {
        let limits = Limits::default();
        for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
            let file = hooks(agent, &limits);
            let events = file["hooks"].as_object().unwrap();
            assert_eq!(events.len(), agent.install_events().len(), "{agent:?}");
            let gate = events.keys().find(|e| hook_agents::install::guards_event(agent, e)).unwrap();
            let command = file["hooks"][gate][0]["hooks"][0]["command"].as_str().unwrap();
            let bridge = format!("hook bridge --protocol {}", agent.as_str());
            let guarded = hook_agents::install::guarded_command(agent, gate, &bridge, &limits);
            assert_eq!(command, guarded, "{agent:?} {gate}");
            assert!(command.contains(&format!("{bridge} <&3 3<&- &")), "{command}");
            let observer = events.keys().find(|e| !hook_agents::install::guards_event(agent, e)).unwrap();
            assert_eq!(file["hooks"][observer][0]["hooks"][0]["command"].as_str(), Some(bridge.as_str()));
        }
    }
}
