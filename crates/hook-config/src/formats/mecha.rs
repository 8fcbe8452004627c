//! mecha's `[[hook]]` tables in its TOML config (`.mecha/config.toml`, `~/.mecha/config.toml`; docs/declarations.md#foreign-formats).
//!
//! ```toml
//! [[hook]]
//! event = "pre_tool"
//! command = "./scripts/guard.sh"
//! tools = ["shell"]
//! timeout_secs = 5
//! ```
//!
//! mecha publishes no hook reference that this reader could follow; it is built from docs/declarations.md#foreign-formats alone. A hook is a
//! shell command (`command`, run by `sh -c`) on an `event` (this engine's names, which mecha uses; the agents'
//! aliases read too), optionally restricted to exact `tools`, with a timeout in seconds (default 10). Under
//! `protocol: mecha`, exit 0 allows (no objection), exit 2 denies with stdout (else stderr) as the reason, and a
//! pre_tool hook denies on any other failure.
//!
//! mecha refuses to start on a bad config, so a key it does not know is an error here (with the nearest key
//! suggested) rather than a warning: the hook is dropped and a strict load refuses. Every other key of the config
//! file belongs to mecha and is passed over.

use serde_json::Value;

use super::WireFile;
use super::agent::{HookBuilder, file_place, hook_place, seconds_to_ms};
use crate::issues::{Reporter, describe, hint};
use crate::parse::{NodePath, Target};

const HOOK_KEYS: &[&str] = &["event", "command", "tools", "timeout_secs"];

/// Reads a mecha config file.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let Value::Object(config) = root else {
        let place = file_place("", NodePath::default(), Target::Node);
        reporter.error(place, format!("expected a TOML table, found {}", describe(root)));
        return None;
    };
    let tables_node = NodePath::default().key("hook");
    let tables = match config.get("hook") {
        None => return Some(WireFile::default()),
        Some(Value::Array(tables)) => tables,
        Some(other) => {
            let place = file_place("hook", tables_node, Target::Node);
            let what = if other.is_object() { "a single `[hook]` table" } else { describe(other) };
            reporter.error(place, format!("expected `[[hook]]` tables (an array of tables), found {what}"));
            return None;
        }
    };
    let mut file = WireFile::default();
    for (index, table) in tables.iter().enumerate() {
        let node = tables_node.index(index);
        let mut hook = HookBuilder::new(index, node.clone());
        let Value::Object(table) = table else {
            let place = hook_place(index, "", node, Target::Node);
            reporter.error(place, format!("expected a `[[hook]]` table, found {}", describe(table)));
            continue;
        };
        hook.set("kind", "command", Value::String("command".into()), node.clone());
        for (key, value) in table {
            let value_node = node.key(key);
            match key.as_str() {
                "event" => hook.set("on", key, value.clone(), value_node),
                "command" => hook.set("shell", key, value.clone(), value_node),
                "tools" => hook.set("tools", key, value.clone(), value_node),
                "timeout_secs" => match seconds_to_ms(value) {
                    Ok(ms) => hook.set("timeout_ms", key, Value::from(ms), value_node),
                    Err(message) => {
                        reporter.error(hook_place(index, key, value_node, Target::Node), message);
                        hook.malformed();
                    }
                },
                _ => {
                    let suggestion = hook_types::did_you_mean(key, HOOK_KEYS.iter().copied());
                    reporter.error(
                        hook_place(index, key, value_node, Target::Key),
                        format!(
                            "unknown key `{key}`{}; a `[[hook]]` table has `event`, `command`, `tools` and `timeout_secs`",
                            hint(suggestion)
                        ),
                    );
                    hook.malformed();
                }
            }
        }
        // Without these the normalizer would speak of `on` and `shell`, which a mecha config never says.
        let missing: Vec<&str> = ["event", "command"].into_iter().filter(|k| !table.contains_key(*k)).collect();
        if !missing.is_empty() {
            let place = hook_place(index, "", node, Target::Node);
            reporter.error(
                place,
                format!("a `[[hook]]` table needs `{}`; this hook was not loaded", missing.join("` and `")),
            );
            continue;
        }
        file.hooks.push(hook.finish());
    }
    Some(file)
}
