//! No tool spelling passes in silence: a gate event naming a tool the firing agent's table entry does not know,
//! while a `tools:`-scoped hook is loaded on that event, is announced to the session's user once per session.
//!
//! A `tools: [shell]` gate meets a call by its canonical tool, and the canonical tool comes from the agent table
//! ([`hook_types::Agent::knows_tool`]). A tool the firing agent's entry does not know (a new release's tool, another
//! spelling of a shell) meets such a gate only where the gate lists its raw name. The rule, from the table and for
//! every agent alike:
//!
//! - **Which events:** the tool events among the gates (`pre_tool`, `permission_request`); an observer's filter
//!   decides nothing.
//! - **Which agent:** the one whose hook input this is, as [`crate::AgentFields::protocol`] names it (the bridge
//!   fills it); an input a host builds itself is this engine's own entry, which knows every spelling of every entry
//!   (a host's own tool is "unknown" to it only when no table maps it).
//! - **When:** some hook on the event (a guard or a user hook, run or not) has a `tools:` list, and none lists the
//!   call's own name or one of its aliases: a gate that names it already knows it.
//! - **How often:** once per session and agent and tool, in the same per-session "already told" set as the
//!   skipped-guard notices (`unknown-tool:<agent>:<tool>`); always, without a session id.

use hook_types::{Event, Protocol};

use super::continuation::Sessions;
use super::routing::Routable;
use super::table::Table;
use crate::EventInput;

/// The most `tools:` gates the notice names.
const NAMED_GATES: usize = 3;

/// The most characters of a tool's name the notice shows and the session file keeps: the name is the agent's input,
/// of any length.
const NAME_CHARS: usize = 100;

/// The notice for `input` when its tool is one the firing agent's entry does not know while `table` holds a
/// `tools:`-scoped hook on its event that does not list it, and the session has not been told yet. Allocates
/// nothing for a known tool.
pub(crate) fn notice(
    table: &Table,
    sessions: &Sessions,
    input: &EventInput,
    problems: &mut Vec<String>,
) -> Option<String> {
    let event = &input.event;
    if !(event.is_tool_event() && hook_config::is_gate(event)) {
        return None;
    }
    let name = input.tool_name.as_deref()?;
    let protocol = input.extra.as_ref().map_or(Protocol::Native, |fields| fields.protocol);
    let agent = protocol.agent();
    let names = || std::iter::once(name).chain(input.tool_aliases.iter().map(String::as_str));
    if names().any(|n| agent.knows_tool(n)) {
        return None;
    }
    let lists = scoped_tool_lists(table, event);
    if lists.is_empty() || lists.iter().any(|(_, tools)| tools.iter().any(|t| names().any(|n| n == t))) {
        return None;
    }
    let name = shown(name);
    let key = format!("unknown-tool:{}:{name}", agent.as_str());
    if sessions.first_notices(input.session_id.as_deref(), vec![key], false, problems).is_empty() {
        return None;
    }
    Some(text(agent, &name, event, &lists, input.session_id.is_some()))
}

/// The id and `tools:` list of every hook on `event` that has one: the guards', then the user tier's.
fn scoped_tool_lists<'t>(table: &'t Table, event: &Event) -> Vec<(&'t str, &'t [String])> {
    let guards = table.guards.list.iter().filter(|g| g.registration.events.contains(event));
    let guards = guards.filter_map(|g| Some((g.registration.id.as_str(), g.filter().tools.as_deref()?)));
    let users = table.user.iter().filter(|h| h.decl().event == *event);
    let users = users.filter_map(|h| Some((h.decl().id.as_str(), h.filter().tools.as_deref()?)));
    guards.chain(users).collect()
}

/// `name` as the notice shows it: its first [`NAME_CHARS`] characters, a control character as U+FFFD.
fn shown(name: &str) -> String {
    let mut out: String = name.chars().take(NAME_CHARS).map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect();
    if name.chars().nth(NAME_CHARS).is_some() {
        out.push('…');
    }
    out
}

fn text(agent: &hook_types::Agent, name: &str, event: &Event, lists: &[(&str, &[String])], once: bool) -> String {
    let mut gates: Vec<String> =
        lists.iter().take(NAMED_GATES).map(|(id, tools)| format!("`{id}`: {}", tools.join(", "))).collect();
    if lists.len() > NAMED_GATES {
        gates.push(format!("{} more", lists.len() - NAMED_GATES));
    }
    let gates = gates.join("; ");
    let (unknown, report) = if agent.protocol == Protocol::Native {
        (format!("The tool `{name}` is in no agent's table of this engine"), String::new())
    } else {
        let who = agent.name;
        (
            format!("{who} called the tool `{name}`, which this engine's table of {who}'s tools does not know"),
            format!("; if it is one of {who}'s own tools, report it so the engine's agent table can name it"),
        )
    };
    let seen = match hook_types::static_canonical_tool(name) {
        Some(tool) => format!(
            "; it is read as `{tool}` only because another agent has a tool of that name, so the `tools:` gates on \
             {event} ({gates}) may not see it as what it is"
        ),
        None => format!(
            ", so it is no canonical tool: the `tools:` gates on {event} ({gates}) see it only if they list `{name}`"
        ),
    };
    let once = if once { " (Said once per session.)" } else { "" };
    format!("{unknown}{seen}. To gate it, add `{name}` to the gate's `tools:`{report}.{once}")
}
