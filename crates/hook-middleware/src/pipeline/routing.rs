//! The routing index: event → match value (tool name and aliases, `source`, `trigger`) → hooks.
//!
//! A dispatch never scans every hook: it looks the event up (an array slot for the nine canonical events, a map
//! for foreign ones), then each of the input's match values in a map of exact names, and tests only the regex
//! matchers of hooks filed under that event. Every candidate is then checked against its full filter, so the index
//! is a pre-selection that can only over-approximate, never miss.
//!
//! Filter rules (docs/declarations.md): `tools` applies on tool events only; `matcher` applies to the event's own field
//! where the event has one (tool events, session_start, compaction) and is ignored elsewhere, as Claude Code
//! ignores it on `UserPromptSubmit` and `Stop`; with a field but no value in the input (a pre_tool without a tool
//! name) a filtered hook does not fire; any of the dispatch's tool aliases matching is enough; `only_errors` applies
//! on post_tool, `scope` on turn_end.
//!
//! A hook's `if` condition (Claude Code's permission-rule syntax) is tested last, against the call's canonical tool
//! and its input, on tool events and on another agent's events whose input names a tool; on any other event such
//! a hook does not fire.
//!
//! Looking up and testing allocate nothing (but to test an `if` condition): [`Index::any_match`] is what lets a
//! dispatch with no matching hook return without touching the heap.

use std::borrow::Cow;
use std::collections::HashMap;

use std::path::Path;

use hook_config::{CommandMatcher, MatcherRule, OnUnknown, PathContext, PermissionRule};
use hook_shell::Match;
use hook_types::{AGENTS, CANONICAL_EVENTS, Event, Protocol};

use super::registration::Filter;
use crate::EventInput;

/// Something the index can file: its events and its filter.
pub(crate) trait Routable {
    /// The events it listens to.
    fn events(&self) -> &[Event];
    /// Its filters.
    fn filter(&self) -> &Filter;
}

/// The hooks of one event, filed by how they filter.
#[derive(Debug, Default)]
struct Bucket {
    /// No filter that applies to this event: always a candidate.
    any: Vec<u32>,
    /// Exact names (`tools`, or an exact-names matcher) → hooks.
    by_value: HashMap<String, Vec<u32>>,
    /// Regex matchers: tested one by one, only for this event.
    patterns: Vec<u32>,
}

impl Bucket {
    fn is_empty(&self) -> bool {
        self.any.is_empty() && self.by_value.is_empty() && self.patterns.is_empty()
    }
}

/// The routing index of one list of hooks (one tier list of a table).
#[derive(Debug, Default)]
pub(crate) struct Index {
    canonical: [Bucket; CANONICAL_EVENTS.len()],
    foreign: HashMap<String, Bucket>,
}

/// Whether the event has a field a matcher tests (docs/declarations.md#matchers).
pub(crate) fn has_match_field(event: &Event) -> bool {
    event.is_tool_event() || matches!(event, Event::SessionStart | Event::Compaction)
}

fn slot(event: &Event) -> Option<usize> {
    CANONICAL_EVENTS.iter().position(|e| e == event)
}

/// What a hook's filter is tested against: the input's values, and — outside a preview — whether the call failed
/// and whether the run is a subagent's.
pub(crate) struct Probe<'a> {
    event: &'a Event,
    value: Option<&'a str>,
    aliases: &'a [String],
    /// The canonical tool the tool name (or an alias) means, on tool events (`Bash` → `shell`).
    tool: Option<Cow<'static, str>>,
    is_error: Option<bool>,
    subagent: Option<bool>,
    /// The call's input, its working directory and the workspace, which an `if` condition tests; `None` in a
    /// preview, where a condition does not exclude.
    call: Option<Call<'a>>,
    /// The commands a shell call runs, read the first time a `command:` matcher asks (once per probe).
    shell: std::cell::OnceCell<Option<hook_shell::Analysis>>,
}

/// What an `if` condition is tested against besides the tool.
#[derive(Clone, Copy)]
struct Call<'a> {
    /// The tool the input names, on any event (another agent's event may be about a tool call).
    tool_name: Option<&'a str>,
    input: Option<&'a serde_json::Value>,
    cwd: Option<&'a str>,
    workspace: Option<&'a Path>,
}

impl<'a> Probe<'a> {
    /// The probe of a real dispatch.
    pub(crate) fn of(input: &'a EventInput) -> Self {
        let aliases: &[String] = if input.event.is_tool_event() { &input.tool_aliases } else { &[] };
        let value = input.match_value();
        let tool = tool_of(&input.event, value, aliases);
        Probe {
            event: &input.event,
            value,
            aliases,
            tool,
            is_error: Some(input.is_error),
            subagent: Some(input.subagent),
            call: Some(Call {
                tool_name: input.tool_name.as_deref(),
                input: input.tool_input.as_ref(),
                cwd: input.cwd.as_deref(),
                workspace: None,
            }),
            shell: std::cell::OnceCell::new(),
        }
    }

    /// The probe of a real dispatch in `workspace`: an `if` condition's `/` patterns are rooted there.
    pub(crate) fn within(mut self, workspace: &'a Path) -> Self {
        if let Some(call) = &mut self.call {
            call.workspace = Some(workspace);
        }
        self
    }

    /// The probe of a preview: `only_errors` and `scope` are not known, so they do not exclude (the preview lists
    /// them as conditions instead).
    pub(crate) fn preview(event: &'a Event, value: Option<&'a str>) -> Self {
        let tool = tool_of(event, value, &[]);
        Probe {
            event,
            value,
            aliases: &[],
            tool,
            is_error: None,
            subagent: None,
            call: None,
            shell: Default::default(),
        }
    }

    /// The names as the input gives them: the tool name (or `source`, `trigger`) and the dispatch's aliases.
    fn values(&self) -> impl Iterator<Item = &str> + '_ {
        self.value.into_iter().chain(self.aliases.iter().map(String::as_str))
    }

    /// The names a `tools` entry is tested against: the input's own and the canonical tool.
    fn tool_values(&self) -> impl Iterator<Item = &str> + '_ {
        self.values().chain(self.tool.as_deref())
    }

    /// The names a matcher written in `protocol`'s spelling is tested against: the input's own, and every name
    /// `protocol`'s agent has for the canonical tool (an MCP tool in that agent's spelling).
    fn matcher_values(&self, protocol: Protocol) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        let tool: Option<&str> = self.tool.as_deref();
        let spellings = tool.into_iter().flat_map(move |t| protocol.agent().tool_names(t));
        let mcp = tool.filter(|t| t.starts_with("mcp:")).and_then(|t| hook_types::tool_name_for(protocol, t, ""));
        let mcp = mcp.map(|n| -> Cow<'_, str> { Cow::Owned(n.into_owned()) });
        self.values().chain(spellings.map(shorten)).map(Cow::Borrowed).chain(mcp)
    }

    /// Every name an index may have filed a hook under for this probe: the input's own, the canonical tool, and
    /// every agent's spelling of it.
    fn lookup_values(&self) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        let tool: Option<&str> = self.tool.as_deref();
        let spellings = tool.into_iter().flat_map(|t| AGENTS.iter().flat_map(move |a| a.tool_names(t)));
        let mcp =
            tool.filter(|t| t.starts_with("mcp:")).and_then(|t| hook_types::tool_name_for(Protocol::Claude, t, ""));
        let mcp = mcp.map(|n| -> Cow<'_, str> { Cow::Owned(n.into_owned()) });
        self.tool_values().chain(spellings.map(shorten)).map(Cow::Borrowed).chain(mcp)
    }

    /// Whether `filter` lets the hook fire for this probe.
    pub(crate) fn accepts(&self, filter: &Filter) -> bool {
        self.refusal(filter).is_none()
    }

    /// Which of `filter`'s rules turns this probe away, checked in a fixed order; `None` when the hook fires. The
    /// one test behind both routing ([`Probe::accepts`]) and [`Pipeline::explain`](super::Pipeline::explain), so an
    /// explanation says what a dispatch does.
    pub(crate) fn refusal(&self, filter: &Filter) -> Option<Refusal> {
        if *self.event == Event::PostTool && filter.only_errors && self.is_error == Some(false) {
            return Some(Refusal::NotFailed);
        }
        if *self.event == Event::TurnEnd
            && let Some(subagent) = self.subagent
            && !filter.scope.matches(subagent)
        {
            return Some(Refusal::Scope);
        }
        if self.event.is_tool_event()
            && let Some(tools) = &filter.tools
            && !self.tool_values().any(|v| tools.iter().any(|t| t == v))
        {
            return Some(Refusal::Tools);
        }
        if has_match_field(self.event)
            && let Some(matcher) = &filter.matcher
        {
            let matched = if self.event.is_tool_event() {
                self.matcher_values(filter.protocol).any(|v| matcher.matches(&v))
            } else {
                self.values().any(|v| matcher.matches(v))
            };
            if !matched {
                return Some(Refusal::Matcher);
            }
        }
        if let Some(condition) = &filter.condition
            && !self.meets(condition)
        {
            return Some(Refusal::Condition);
        }
        if let Some(command) = &filter.command {
            match self.command_match(command) {
                Some(Match::No) => return Some(Refusal::Command),
                Some(Match::Unknown(unknown)) if command.on_unknown_for(unknown.reason) == OnUnknown::Pass => {
                    return Some(Refusal::Command);
                }
                // A match runs the hook; a line not read that the hook denies or asks on is answered without it.
                Some(Match::Yes | Match::Unknown(_)) | None => {}
            }
        }
        None
    }

    /// Why an allow from a hook under `filter` cannot stand on this call, or `None` when it can: on a shell call, a
    /// `command:` or `if` shell rule matches a line when one command of it does, and an approval must cover every
    /// command the line runs ([`CommandMatcher::allow_breaker`], [`PermissionRule::allow_breaker`]). Nothing to say
    /// in a preview, off the shell tool, or for a hook scoped by neither.
    pub(crate) fn allow_breaker(&self, filter: &Filter) -> Option<String> {
        let call = self.call?;
        if !self.event.is_tool_event() || self.tool.as_deref() != Some("shell") {
            return None;
        }
        if filter.command.is_none() && filter.condition.is_none() {
            return None;
        }
        // The reading the routing made (`command:`), or made now: the line is read once per call.
        let analysis = self.shell.get_or_init(|| hook_config::shell_analysis(call.input)).as_ref();
        if let Some(why) = filter.command.as_ref().zip(analysis).and_then(|(command, a)| command.allow_breaker(a)) {
            return Some(why);
        }
        let condition = filter.condition.as_ref()?;
        let why = condition.allow_breaker(analysis)?;
        Some(format!("under `if: {}`, {why}", condition.as_str()))
    }

    /// What a `command:` matcher says of this call: `No` for a call that is not a shell command on a tool event,
    /// `None` in a preview (no input, so it does not exclude).
    pub(crate) fn command_match(&self, command: &CommandMatcher) -> Option<Match> {
        let call = self.call?;
        if !self.event.is_tool_event() || self.tool.as_deref() != Some("shell") {
            return Some(Match::No);
        }
        let analysis = self.shell.get_or_init(|| hook_config::shell_analysis(call.input));
        Some(analysis.as_ref().map_or(Match::No, |analysis| command.test(analysis)))
    }

    /// Whether the call meets an `if` condition: the canonical tool (or, for a tool no table maps, one of its own
    /// names) and the input tested, on a tool event or on another agent's event whose input names a tool (Claude
    /// Code's `PermissionDenied`); a hook with a condition never fires on any other event. A preview, which has no
    /// input, is not excluded by the input.
    fn meets(&self, condition: &PermissionRule) -> bool {
        if self.event.is_foreign() {
            let Some(call) = self.call else { return false };
            let Some(name) = call.tool_name else { return false };
            let tool = hook_types::canonical_tool(name);
            let paths = Paths::of(call);
            return condition.matches_named(tool.as_deref().unwrap_or(name), &[name], call.input, &paths.context());
        }
        if !self.event.is_tool_event() {
            return false;
        }
        let Some(tool) = self.tool.as_deref().or(self.value) else { return false };
        let names: Vec<&str> = self.values().collect();
        let Some(call) = self.call else {
            return condition.matches_named(tool, &names, None, &PathContext::default());
        };
        let paths = Paths::of(call);
        condition.matches_named(tool, &names, call.input, &paths.context())
    }

    /// The event this probe is about.
    pub(crate) fn event(&self) -> &Event {
        self.event
    }

    /// The names a `tools:` entry was tested against, for an explanation.
    pub(crate) fn tested_tools(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for name in self.tool_values() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        names
    }

    /// The names a matcher in `protocol`'s spelling was tested against, for an explanation.
    pub(crate) fn tested_by_matcher(&self, protocol: Protocol) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let tested: Vec<Cow<'_, str>> = if self.event.is_tool_event() {
            self.matcher_values(protocol).collect()
        } else {
            self.values().map(Cow::Borrowed).collect()
        };
        for name in tested {
            if !names.iter().any(|n| *n == *name) {
                names.push(name.into_owned());
            }
        }
        names
    }

    /// The probe without `only_errors` and `scope` settled: they then exclude nothing (an explanation without an
    /// input lists them as conditions, as a preview does).
    pub(crate) fn unsettled(mut self) -> Self {
        self.is_error = None;
        self.subagent = None;
        self
    }
}

/// Which rule of a filter turned a probe away ([`Probe::refusal`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `only_errors` on a post_tool whose call did not fail.
    NotFailed,
    /// `scope` on a turn_end of the other kind of run.
    Scope,
    /// `tools:` names none of the call's names.
    Tools,
    /// The matcher matches none of the names tested.
    Matcher,
    /// The `if` condition (a permission rule) is not met by the call.
    Condition,
    /// The `command:` matcher matches none of the commands the shell call runs.
    Command,
}

/// Where a condition's paths are rooted for a call: its working directory (the workspace where it gives none), the
/// workspace, the home directory.
struct Paths<'a> {
    cwd: Option<&'a Path>,
    project: Option<&'a Path>,
    home: Option<std::path::PathBuf>,
}

impl<'a> Paths<'a> {
    fn of(call: Call<'a>) -> Self {
        let cwd = call.cwd.map(Path::new).filter(|c| c.is_absolute());
        Paths {
            cwd: cwd.or(call.workspace),
            project: call.workspace,
            home: std::env::var_os(hook_config::platform::HOME_VAR).map(Into::into),
        }
    }

    fn context(&self) -> PathContext<'_> {
        PathContext { cwd: self.cwd, project: self.project, home: self.home.as_deref() }
    }
}

/// A table's name as a borrow of any lifetime, to chain with the input's own names.
fn shorten<'x>(name: &'static str) -> &'x str {
    name
}

/// The canonical tool of a tool event's name or its first alias that has one. Allocates only for an MCP tool
/// in an agent's spelling (`mcp__server__tool`).
fn tool_of(event: &Event, value: Option<&str>, aliases: &[String]) -> Option<Cow<'static, str>> {
    if !event.is_tool_event() {
        return None;
    }
    value.into_iter().chain(aliases.iter().map(String::as_str)).find_map(hook_types::canonical_tool)
}

impl Index {
    /// Files every item under each of its events.
    pub(crate) fn build<T: Routable>(items: &[T]) -> Index {
        let mut index = Index::default();
        for (position, item) in items.iter().enumerate() {
            let position = u32::try_from(position).expect("fewer than 2^32 hooks");
            let filter = item.filter();
            let mut seen: Vec<&Event> = Vec::new();
            for event in item.events() {
                if seen.contains(&event) {
                    continue;
                }
                seen.push(event);
                let bucket = match (slot(event), event) {
                    (Some(i), _) => &mut index.canonical[i],
                    (None, Event::Foreign(name)) => index.foreign.entry(name.clone()).or_default(),
                    (None, _) => unreachable!("every canonical event has a slot"),
                };
                let exact: Option<&[String]> = match (&filter.tools, &filter.matcher) {
                    (Some(tools), _) if event.is_tool_event() => Some(tools),
                    (_, Some(matcher)) if has_match_field(event) => match &matcher.rule {
                        MatcherRule::Exact(names) => Some(names),
                        MatcherRule::Regex(_) => {
                            bucket.patterns.push(position);
                            continue;
                        }
                    },
                    _ => None,
                };
                match exact {
                    Some(names) => {
                        for name in names {
                            let hooks = bucket.by_value.entry(name.clone()).or_default();
                            if hooks.last() != Some(&position) {
                                hooks.push(position);
                            }
                        }
                    }
                    None => bucket.any.push(position),
                }
            }
        }
        index
    }

    fn bucket(&self, event: &Event) -> Option<&Bucket> {
        let bucket = match event {
            Event::Foreign(name) => self.foreign.get(name.as_str()),
            other => slot(other).map(|i| &self.canonical[i]),
        };
        bucket.filter(|b| !b.is_empty())
    }

    /// Candidate positions: possibly repeated, unordered, never missing a match.
    fn candidates<'s>(&'s self, bucket: &'s Bucket, probe: &'s Probe<'_>) -> impl Iterator<Item = usize> + 's {
        let exact = probe.lookup_values().filter_map(|v| bucket.by_value.get(v.as_ref())).flatten();
        bucket.any.iter().chain(exact).chain(bucket.patterns.iter()).map(|&p| p as usize)
    }

    /// Whether any item fires for the probe. Allocates nothing.
    pub(crate) fn any_match<T: Routable>(&self, items: &[T], probe: &Probe<'_>) -> bool {
        let Some(bucket) = self.bucket(probe.event) else {
            return false;
        };
        self.candidates(bucket, probe).any(|p| probe.accepts(items[p].filter()))
    }

    /// The positions of the items that fire for the probe, in list order.
    pub(crate) fn matching<T: Routable>(&self, items: &[T], probe: &Probe<'_>) -> Vec<usize> {
        let Some(bucket) = self.bucket(probe.event) else {
            return Vec::new();
        };
        let mut found: Vec<usize> =
            self.candidates(bucket, probe).filter(|&p| probe.accepts(items[p].filter())).collect();
        found.sort_unstable();
        found.dedup();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_config::Matcher;
    use hook_types::Scope;

    struct Item(Vec<Event>, Filter);

    impl Routable for Item {
        fn events(&self) -> &[Event] {
            &self.0
        }
        fn filter(&self) -> &Filter {
            &self.1
        }
    }

    fn exact(names: &[&str]) -> Option<Matcher> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        Some(Matcher { pattern: names.join("|"), rule: MatcherRule::Exact(names) })
    }

    fn regex(pattern: &str) -> Option<Matcher> {
        Some(Matcher { pattern: pattern.into(), rule: MatcherRule::Regex(regex::Regex::new(pattern).unwrap()) })
    }

    fn tool_input(tool: &str, aliases: &[&str]) -> EventInput {
        let mut input = EventInput::new(Event::PreTool).with_tool(tool, serde_json::json!({}));
        input.tool_aliases = aliases.iter().map(|s| s.to_string()).collect();
        input
    }

    #[test]
    fn an_if_condition_is_tested_last_against_the_canonical_tool_and_input() {
        let rule = |text: &str, protocol| Some(hook_config::PermissionRule::parse(text, protocol).unwrap());
        let items = vec![
            Item(
                vec![Event::PreTool],
                Filter { condition: rule("Bash(git push *)", Protocol::Claude), ..Filter::default() },
            ),
            Item(
                vec![Event::PreTool],
                Filter { condition: rule("edit(/src/**)", Protocol::Native), ..Filter::default() },
            ),
            Item(vec![Event::TurnEnd], Filter { condition: rule("shell", Protocol::Native), ..Filter::default() }),
        ];
        let index = Index::build(&items);
        let workspace = Path::new("/ws");
        let call = |tool: &str, input: serde_json::Value| EventInput::new(Event::PreTool).with_tool(tool, input);
        let push = call("run_shell_command", serde_json::json!({"command": "ls && git push"}));
        assert_eq!(index.matching(&items, &Probe::of(&push).within(workspace)), vec![0]);
        let pull = call("Bash", serde_json::json!({"command": "git pull"}));
        assert!(!index.any_match(&items, &Probe::of(&pull).within(workspace)));
        let edit = call("replace", serde_json::json!({"file_path": "/ws/src/lib.rs"}));
        assert_eq!(index.matching(&items, &Probe::of(&edit).within(workspace)), vec![1]);
        let elsewhere = call("Edit", serde_json::json!({"file_path": "/ws/docs/a.md"}));
        assert!(!index.any_match(&items, &Probe::of(&elsewhere).within(workspace)));
        // On an event without a tool call, a hook with a condition never fires.
        assert!(!index.any_match(&items, &Probe::of(&EventInput::new(Event::TurnEnd))));
        // Another agent's event about a tool call is tested by the tool its input names.
        let denied = Event::Foreign("PermissionDenied".into());
        let foreign = vec![Item(
            vec![denied.clone()],
            Filter { condition: rule("shell(git *)", Protocol::Native), ..Filter::default() },
        )];
        let by_tool = Index::build(&foreign);
        let git = EventInput::new(denied.clone()).with_tool("Bash", serde_json::json!({"command": "git push"}));
        assert!(by_tool.any_match(&foreign, &Probe::of(&git).within(workspace)));
        let ls = EventInput::new(denied.clone()).with_tool("Bash", serde_json::json!({"command": "ls"}));
        assert!(!by_tool.any_match(&foreign, &Probe::of(&ls).within(workspace)));
        assert!(!by_tool.any_match(&foreign, &Probe::of(&EventInput::new(denied))));
        // A preview has no input: only the tool is tested.
        assert_eq!(index.matching(&items, &Probe::preview(&Event::PreTool, Some("shell"))), vec![0]);
    }

    #[test]
    fn routes_by_event_then_tool_name_alias_and_regex() {
        let items = vec![
            Item(vec![Event::PreTool], Filter { tools: Some(vec!["shell".into()]), ..Filter::default() }),
            Item(vec![Event::PreTool], Filter { matcher: regex("^wr"), ..Filter::default() }),
            Item(vec![Event::PreTool, Event::PostTool], Filter::default()),
            Item(vec![Event::PostTool], Filter { matcher: exact(&["Bash", "shell"]), ..Filter::default() }),
            Item(vec![Event::PreTool], Filter { matcher: exact(&["Bash"]), ..Filter::default() }),
        ];
        let index = Index::build(&items);
        let input = tool_input("shell", &[]);
        assert_eq!(index.matching(&items, &Probe::of(&input)), vec![0, 2]);
        let input = tool_input("write", &[]);
        assert_eq!(index.matching(&items, &Probe::of(&input)), vec![1, 2]);
        // Codex's matcher aliases: `shell` is also known as `Bash`.
        let input = tool_input("shell", &["Bash"]);
        assert_eq!(index.matching(&items, &Probe::of(&input)), vec![0, 2, 4]);
        let mut post = tool_input("Bash", &[]);
        post.event = Event::PostTool;
        assert_eq!(index.matching(&items, &Probe::of(&post)), vec![2, 3]);
        let session = EventInput::new(Event::SessionEnd);
        assert!(!index.any_match(&items, &Probe::of(&session)));
    }

    #[test]
    fn only_errors_and_scope_filter_and_matchers_ignored_where_the_event_has_no_field() {
        let items = vec![
            Item(vec![Event::PostTool], Filter { only_errors: true, ..Filter::default() }),
            Item(vec![Event::TurnEnd], Filter::default()),
            Item(vec![Event::TurnEnd], Filter { scope: Scope::Subagent, ..Filter::default() }),
            Item(vec![Event::TurnEnd], Filter { matcher: exact(&["x"]), ..Filter::default() }),
        ];
        let index = Index::build(&items);
        let mut post = tool_input("shell", &[]);
        post.event = Event::PostTool;
        assert!(!index.any_match(&items, &Probe::of(&post)));
        post.is_error = true;
        assert_eq!(index.matching(&items, &Probe::of(&post)), vec![0]);
        let mut stop = EventInput::new(Event::TurnEnd);
        assert_eq!(index.matching(&items, &Probe::of(&stop)), vec![1, 3]);
        stop.subagent = true;
        assert_eq!(index.matching(&items, &Probe::of(&stop)), vec![2]);
    }

    #[test]
    fn foreign_events_route_by_name() {
        let items = vec![Item(vec![Event::Foreign("SubagentStart".into())], Filter::default())];
        let index = Index::build(&items);
        assert!(index.any_match(&items, &Probe::of(&EventInput::new(Event::Foreign("SubagentStart".into())))));
        assert!(!index.any_match(&items, &Probe::of(&EventInput::new(Event::Foreign("WorktreeCreate".into())))));
    }
}
