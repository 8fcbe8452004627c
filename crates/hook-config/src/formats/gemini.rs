//! Gemini CLI's `settings.json` (`.gemini/settings.json`, `~/.gemini/settings.json`; docs/declarations.md#foreign-formats).
//!
//! ```json
//! { "hooks": { "BeforeTool": [ { "matcher": "write_file|replace", "sequential": true,
//!     "hooks": [ { "type": "command", "command": "./check.sh", "name": "check", "timeout": 5000 } ] } ] } }
//! ```
//!
//! Every other key of the settings file is Gemini CLI's business and is passed over. What the reader keeps:
//!
//! - **Events.** BeforeTool, AfterTool, BeforeAgent, AfterAgent, SessionStart, SessionEnd, PreCompress and
//!   Notification map to their canonical events (docs/events.md); BeforeModel, AfterModel, BeforeToolSelection and any
//!   other name load as observers of that foreign event.
//! - **Matchers.** Gemini CLI tests a tool event's matcher as an unanchored regex (`read` matches `read_file` and an
//!   MCP tool `mcp_fs_read_many`), where this engine's rule reads a pattern of plain name characters as exact names.
//!   Such a pattern is therefore kept as the regex it is in Gemini CLI, written `(?:read)`, so the hook fires on the
//!   same calls. A matcher on an event this engine cannot filter (SessionEnd's reason, BeforeAgent) is dropped with a
//!   warning: the hook then runs on every such event.
//! - **`sequential` groups** become `sequential: true` on each of their hooks.
//! - **Timeouts** are milliseconds already; the protocol's default is Gemini CLI's 60 000.
//! - **Switches.** `hooksConfig.enabled: false` (or the older `hooks.enabled`) disables every hook of the file, and a
//!   hook whose `name` or `command` is listed in `hooksConfig.disabled` (or `hooks.disabled`) is disabled: loaded,
//!   hashed and shown, never run.
//! - **Failure policy**: `protocol: gemini`, which fails open (exit 2 blocks, other exits warn; docs/output-protocol.md).
//!
//! - **Comments.** Gemini CLI reads `settings.json` with `//` and `/* */` comments allowed; [`strip_comments`] blanks
//!   them out before parsing, keeping every other character where it was so positions in issues stay true.
//!
//! A hook's `name` and `description` are for Gemini CLI's own listings; ids stay the default `<origin>.command.<hash>`
//! (a name is not unique across events or files, and an id is a merge key across origins).

use serde_json::Value;

use super::WireFile;
use super::agent::{AgentEvents, HookBuilder, expect_str, file_place, hook_place, unknown_key};
use crate::issues::{Reporter, describe};
use crate::model::Matcher;
use crate::parse::{NodePath, Target};

const AGENT: &str = "Gemini CLI";

const EVENTS: AgentEvents = AgentEvents::of(hook_types::Protocol::Gemini);

/// The switches Gemini CLI reads beside the events (in `hooksConfig`, or in `hooks` in older versions).
/// The keys of `hooks` that are settings, not events: the agent table's.
const SWITCHES: &[&str] = hook_types::Protocol::Gemini.agent().hooks_switches;
const GROUP_KEYS: &[&str] = &["matcher", "sequential", "hooks"];
const HOOK_KEYS: &[&str] = &["type", "command", "name", "timeout", "description"];

/// What the switches say.
struct Switches {
    all_enabled: bool,
    disabled: Vec<String>,
}

/// Reads a Gemini CLI settings file.
///
/// # Order
///
/// 1. the settings object;
/// 2. the switches in `hooksConfig`;
/// 3. the `hooks` mapping, and the switches older versions kept there beside the events;
/// 4. each event's groups, and each group's hooks, in file order.
pub(super) fn read(root: &Value, reporter: &mut Reporter<'_>) -> Option<WireFile> {
    let Value::Object(settings) = root else {
        let place = file_place("", NodePath::default(), Target::Node);
        reporter.error(place, format!("expected a settings object, found {}", describe(root)));
        return None;
    };
    let mut switches = Switches { all_enabled: true, disabled: Vec::new() };
    if let Some(config) = settings.get("hooksConfig") {
        read_switches(config, "hooksConfig", NodePath::default().key("hooksConfig"), &mut switches, reporter);
    }
    let hooks_node = NodePath::default().key("hooks");
    let events = match settings.get("hooks") {
        None | Some(Value::Null) => return Some(WireFile::default()),
        Some(Value::Object(events)) => events,
        Some(other) => {
            let place = file_place("hooks", hooks_node, Target::Node);
            reporter
                .error(place, format!("expected a mapping of event names to hook groups, found {}", describe(other)));
            return None;
        }
    };
    // Older Gemini CLI versions kept the switches inside `hooks`, beside the events.
    let legacy: serde_json::Map<String, Value> =
        events.iter().filter(|(k, _)| SWITCHES.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    if !legacy.is_empty() {
        read_switches(&Value::Object(legacy), "hooks", hooks_node.clone(), &mut switches, reporter);
    }
    let mut reader = Reader { switches, file: WireFile::default(), position: 0 };
    for (event, groups) in events.iter().filter(|(k, _)| !SWITCHES.contains(&k.as_str())) {
        reader.event(event, groups, &hooks_node, reporter);
    }
    Some(reader.file)
}

/// The hooks read so far, and the switches every hook is read under.
struct Reader {
    switches: Switches,
    file: WireFile,
    /// Every entry takes a position, loaded or not, so `hooks[N]` in issues counts the entries as written.
    position: usize,
}

/// The event a group is under: its name as written, the event it loads as, that event's canonical name where it
/// has one here, and its node.
struct EventAt<'e> {
    name: &'e str,
    on: String,
    canonical: Option<&'static str>,
    node: NodePath,
}

impl Reader {
    /// One event's list of groups.
    fn event(&mut self, event: &str, groups: &Value, hooks_node: &NodePath, reporter: &mut Reporter<'_>) {
        reporter.in_event(None);
        let event_node = hooks_node.key(event);
        let Value::Array(groups) = groups else {
            let place = file_place(format!("hooks.{event}"), event_node, Target::Node);
            reporter.error(place, format!("expected a list of hook groups, found {}", describe(groups)));
            return;
        };
        let (on, row) =
            EVENTS.resolve(event, file_place(format!("hooks.{event}"), event_node.clone(), Target::Key), reporter);
        let canonical = row.and_then(|r| r.event.as_ref()).map(hook_types::Event::canonical_name);
        reporter.in_event(Some(&on));
        let at = EventAt { name: event, on, canonical, node: event_node };
        for (g, group) in groups.iter().enumerate() {
            self.group(&at, g, group, reporter);
        }
    }

    /// The group at `g` of an event: `{matcher?, sequential?, hooks: [...]}`, each hook carrying the group's matcher
    /// and `sequential`.
    fn group(&mut self, event: &EventAt<'_>, g: usize, group: &Value, reporter: &mut Reporter<'_>) {
        let group_path = format!("hooks.{}[{g}]", event.name);
        let group_node = event.node.index(g);
        let Value::Object(group) = group else {
            let place = file_place(group_path, group_node, Target::Node);
            let found = describe(group);
            reporter.error(
                place,
                format!("expected a hook group (`{{matcher, sequential, hooks: [...]}}`), found {found}"),
            );
            return;
        };
        for key in group.keys().filter(|k| !GROUP_KEYS.contains(&k.as_str())) {
            let place = file_place(format!("{group_path}.{key}"), group_node.key(key), Target::Key);
            unknown_key(reporter, place, key, GROUP_KEYS, AGENT);
        }
        let matcher = group.get("matcher").and_then(|m| {
            let field = format!("{group_path}.matcher");
            group_matcher(m, event.canonical, &field, group_node.key("matcher"), event.name, reporter)
        });
        let entries = match group.get("hooks") {
            Some(Value::Array(entries)) => entries,
            Some(other) => {
                let place = file_place(format!("{group_path}.hooks"), group_node.key("hooks"), Target::Node);
                reporter.error(place, format!("expected a list of hooks, found {}", describe(other)));
                return;
            }
            None => {
                let place = file_place(group_path, group_node, Target::Node);
                reporter.error(place, "a hook group needs `hooks` (a list of `{type: \"command\", command}`)");
                return;
            }
        };
        for (h, entry) in entries.iter().enumerate() {
            let node = group_node.key("hooks").index(h);
            let mut hook = HookBuilder::new(self.position, node.clone());
            self.position += 1;
            hook.set("on", "event", Value::String(event.on.clone()), event.node.clone());
            hook.set("kind", "type", Value::String("command".into()), node.clone());
            if let Some((value, node)) = &matcher {
                hook.set("matcher", "matcher", value.clone(), node.clone());
            }
            if let Some(sequential) = group.get("sequential") {
                hook.set("sequential", "sequential", sequential.clone(), group_node.key("sequential"));
            }
            if read_entry(&mut hook, entry, &node, &self.switches, reporter) {
                self.file.hooks.push(hook.finish());
            }
        }
    }
}

/// One hook configuration: `{type: "command", command, name?, timeout?, description?}`. `false` when it cannot be a
/// hook here at all (reported).
fn read_entry(
    hook: &mut HookBuilder,
    entry: &Value,
    node: &NodePath,
    switches: &Switches,
    reporter: &mut Reporter<'_>,
) -> bool {
    let index = hook.index();
    let Value::Object(entry) = entry else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(place, format!("expected a hook (`{{type: \"command\", command}}`), found {}", describe(entry)));
        return false;
    };
    for key in entry.keys().filter(|k| !HOOK_KEYS.contains(&k.as_str())) {
        unknown_key(reporter, hook_place(index, key, node.key(key), Target::Key), key, HOOK_KEYS, AGENT);
    }
    match entry.get("type") {
        Some(Value::String(kind)) if kind == "command" => {}
        Some(Value::String(kind)) => {
            let place = hook_place(index, "type", node.key("type"), Target::Node);
            reporter.error(
                place,
                format!("hook type `{kind}` is not supported (only `command`); this hook was not loaded"),
            );
            return false;
        }
        Some(other) => {
            let place = hook_place(index, "type", node.key("type"), Target::Node);
            reporter
                .error(place, format!("expected `\"command\"`, found {}; this hook was not loaded", describe(other)));
            return false;
        }
        None => {
            let place = hook_place(index, "", node.clone(), Target::Node);
            reporter
                .error(place, "missing `type` (Gemini CLI requires `\"type\": \"command\"`); this hook was not loaded");
            return false;
        }
    }
    let Some(command) = entry.get("command") else {
        let place = hook_place(index, "", node.clone(), Target::Node);
        reporter.error(place, "a command hook needs `command` (the shell command to run); this hook was not loaded");
        return false;
    };
    hook.set("shell", "command", command.clone(), node.key("command"));
    if let Some(timeout) = entry.get("timeout") {
        hook.set("timeout_ms", "timeout", timeout.clone(), node.key("timeout"));
    }
    let mut name = None;
    if let Some(value) = entry.get("name") {
        name = expect_str(value, "a string", hook_place(index, "name", node.key("name"), Target::Node), reporter);
    }
    if let Some(value) = entry.get("description") {
        expect_str(
            value,
            "a string",
            hook_place(index, "description", node.key("description"), Target::Node),
            reporter,
        );
    }
    let command = entry.get("command").and_then(Value::as_str);
    let listed = |s: Option<&str>| s.is_some_and(|s| switches.disabled.iter().any(|d| d == s));
    if !switches.all_enabled || listed(name) || listed(command) {
        hook.set("enabled", "enabled", Value::Bool(false), node.clone());
    }
    true
}

/// A group's matcher as this engine should read it, or `None` (after a warning) where it cannot filter.
fn group_matcher(
    value: &Value,
    canonical: Option<&str>,
    field: &str,
    node: NodePath,
    event: &str,
    reporter: &mut Reporter<'_>,
) -> Option<(Value, NodePath)> {
    let Value::String(pattern) = value else {
        // The normalizer names the wrong type.
        return Some((value.clone(), node));
    };
    match canonical {
        Some("pre_tool" | "post_tool") => {
            let exact =
                matches!(Matcher::parse(pattern), Ok(Some(Matcher { rule: crate::model::MatcherRule::Exact(_), .. })));
            let pattern = if exact { format!("(?:{pattern})") } else { pattern.clone() };
            Some((Value::String(pattern), node))
        }
        Some("session_start" | "compaction") | None => Some((value.clone(), node)),
        Some(_) => {
            if matches!(Matcher::parse(pattern), Ok(None)) {
                return None;
            }
            reporter.warn(
                file_place(field, node, Target::Node),
                format!(
                    "this engine cannot filter {event} by a matcher; `{pattern}` is dropped and the group's hooks run on \
                     every {event}"
                ),
            );
            None
        }
    }
}

/// `enabled` and `disabled` of `hooksConfig` (or the older `hooks`); `notifications` is Gemini CLI's display switch.
fn read_switches(value: &Value, at: &str, node: NodePath, switches: &mut Switches, reporter: &mut Reporter<'_>) {
    let Value::Object(object) = value else {
        reporter.error(file_place(at, node, Target::Node), format!("expected a mapping, found {}", describe(value)));
        return;
    };
    for (key, value) in object {
        let place = file_place(format!("{at}.{key}"), node.key(key), Target::Node);
        match (key.as_str(), value) {
            ("enabled", Value::Bool(enabled)) => switches.all_enabled &= *enabled,
            ("disabled", Value::Array(names)) => {
                for (i, name) in names.iter().enumerate() {
                    let place = file_place(format!("{at}.disabled[{i}]"), node.key(key).index(i), Target::Node);
                    if let Some(name) = expect_str(name, "a hook name", place, reporter) {
                        switches.disabled.push(name.to_owned());
                    }
                }
            }
            ("notifications", Value::Bool(_)) => {}
            ("enabled" | "notifications", other) => {
                reporter.error(place, format!("expected `true` or `false`, found {}", describe(other)));
            }
            ("disabled", other) => {
                reporter.error(place, format!("expected a list of hook names, found {}", describe(other)))
            }
            _ => unknown_key(
                reporter,
                file_place(format!("{at}.{key}"), node.key(key), Target::Key),
                key,
                SWITCHES,
                AGENT,
            ),
        }
    }
}

/// `text` with its JSON comments (`// …` to the end of the line, `/* … */`) replaced by spaces, line breaks kept, so
/// that every other character keeps its line and column. Text inside strings is left alone.
///
/// ```
/// let text = hook_config::strip_json_comments("{\"a\": 1 // one\n}");
/// assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap()["a"], 1);
/// ```
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push(' ');
                while let Some(&next) = chars.peek() {
                    if next == '\n' {
                        break;
                    }
                    chars.next();
                    out.push(blank(next));
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut star = false;
                for next in chars.by_ref() {
                    out.push(blank(next));
                    if star && next == '/' {
                        break;
                    }
                    star = next == '*';
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A comment's character as blank space: line breaks stay, so lines keep their numbers, and every other character
/// becomes one space, so columns (counted in characters) stay.
fn blank(c: char) -> char {
    if c == '\n' || c == '\r' { c } else { ' ' }
}

#[cfg(test)]
mod tests {
    use super::strip_comments;

    #[test]
    fn comments_become_blanks_and_strings_stay() {
        let text = "{\n  // the hooks\n  \"a\": \"//not a comment\", /* two\nlines */ \"b\": \"\\\"/*\"\n}";
        let stripped = strip_comments(text);
        assert_eq!(stripped.lines().count(), text.lines().count());
        let value: serde_json::Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(value, serde_json::json!({"a": "//not a comment", "b": "\"/*"}));
        assert_eq!(stripped.find("\"a\""), text.find("\"a\""), "columns are kept");
    }
}
