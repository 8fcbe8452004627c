//! `explain`: every hook of the pipeline for one event, matched or not, and why — through the same test a dispatch
//! routes with ([`Probe::refusal`]), so the explanation cannot say something the dispatch does not do.

use hook_types::{Event, Protocol, Scope};
use serde::Serialize;

use super::Pipeline;
use super::preview::{guard_entry, user_entry};
use super::result::PreviewEntry;
use super::routing::{Probe, Refusal, Routable};
use crate::EventInput;

/// Why a hook does not fire for an event ([`Pipeline::explain`]).
///
/// ```
/// use hook_middleware::pipeline::Mismatch;
/// let why = Mismatch::Tools { tools: vec!["write".into()], tested: vec!["Bash".into(), "shell".into()] };
/// assert_eq!(why.describe(), "`tools: [write]` names none of `Bash`, `shell`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Mismatch {
    /// It listens to other events.
    Event {
        /// The events it listens to.
        events: Vec<Event>,
    },
    /// Its `tools:` list names none of the names the call goes by: the input's own and the canonical tool the tool
    /// vocabulary reads them as.
    Tools {
        /// The hook's `tools:`.
        tools: Vec<String>,
        /// The names tested, in the order tested.
        tested: Vec<String>,
    },
    /// Its matcher matches none of the names tested: the input's own and, on tool events, every spelling the
    /// matcher's agent has for the canonical tool.
    Matcher {
        /// The matcher as written.
        pattern: String,
        /// The agent whose spelling the matcher is written in.
        protocol: Protocol,
        /// The names tested, in the order tested.
        tested: Vec<String>,
    },
    /// Its `if` condition (a permission rule) does not match the call.
    Condition {
        /// The permission rule as written.
        condition: String,
    },
    /// Its `command:` matcher matches none of the commands the shell call runs.
    Command {
        /// The patterns, in canonical form.
        patterns: String,
    },
    /// `only_errors: true`, and the tool call did not fail.
    NotFailed,
    /// Its `scope` excludes this kind of run (main agent or subagent).
    Scope {
        /// The hook's scope.
        scope: Scope,
    },
}

impl Mismatch {
    /// One line for a person.
    pub fn describe(&self) -> String {
        let names = |names: &[String]| -> String {
            if names.is_empty() {
                return "no name (the input names none)".to_owned();
            }
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        };
        match self {
            Mismatch::Event { events } => {
                let events: Vec<String> = events.iter().map(ToString::to_string).collect();
                format!("listens to {}", events.join(", "))
            }
            Mismatch::Tools { tools, tested } => {
                format!("`tools: [{}]` names none of {}", tools.join(", "), names(tested))
            }
            Mismatch::Matcher { pattern, protocol, tested } => {
                format!("matcher `{pattern}` ({} spelling) matches none of {}", protocol.as_str(), names(tested))
            }
            Mismatch::Condition { condition } => format!("`if: {condition}` does not match the call"),
            Mismatch::Command { patterns } => format!("`command: {patterns}` matches no command the call runs"),
            Mismatch::NotFailed => "`only_errors: true`, and the tool call did not fail".to_owned(),
            Mismatch::Scope { scope: Scope::Subagent } => "`scope: subagent`, and this is the main agent's run".into(),
            Mismatch::Scope { scope } => format!("`scope: {}`, and this is a subagent's run", scope_word(*scope)),
        }
    }
}

fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::Main => "main",
        Scope::Subagent => "subagent",
        Scope::Any => "any",
    }
}

/// One hook of [`Pipeline::explain`]: its preview line, the events it listens to, and why it does not match, if it
/// does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// What a preview shows of it (for a hook that does not match: what it would show if it did).
    #[serde(flatten)]
    pub entry: PreviewEntry,
    /// The events it listens to.
    pub events: Vec<Event>,
    /// `None` when it matches the event.
    pub mismatch: Option<Mismatch>,
    /// A user hook that matches, scoped by `command:` or an `if` shell rule, on a shell line that runs a command
    /// its scope does not cover: why an allow it gives would be dropped (the dispatch drops it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_dropped: Option<String>,
}

impl Explanation {
    /// Whether it would run: it matches, nothing keeps it from running, and its conditions hold.
    pub fn will_run(&self) -> bool {
        self.mismatch.is_none() && self.entry.will_run()
    }
}

impl Pipeline {
    /// Every hook of the pipeline for `input`'s event, in the order [`Pipeline::preview`] lists them (guards, then
    /// the in-process user hooks, then the command hooks, each in precedence order), each with why it does not
    /// match if it does not, and why it would not run if it matches. With `settled`, `only_errors` and `scope` are
    /// tested against the input's `is_error` and `subagent`; without, they are listed as conditions, as a preview
    /// does. Matching is the dispatch's own test, so the hooks that match are the ones a dispatch (or a preview)
    /// picks.
    ///
    /// ```
    /// use hook_middleware::pipeline::{Evaluation, Mismatch, Pipeline, Registration};
    /// use hook_middleware::EventInput;
    /// use hook_types::Event;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let guard = Registration::in_process("host.no-rm", [Event::PreTool], |_: &_, _: &[_]| Ok(Evaluation::pass()))
    ///     .tools(["shell"]);
    /// let pipeline = Pipeline::builder().workspace(workspace.path()).host(guard).build().unwrap();
    /// let input = EventInput::new(Event::PreTool).with_tool("Write", serde_json::json!({}));
    /// let explained = pipeline.explain(&input, true);
    /// assert!(matches!(&explained[0].mismatch, Some(Mismatch::Tools { tested, .. }) if tested == &["Write", "write"]));
    /// ```
    pub fn explain(&self, input: &EventInput, settled: bool) -> Vec<Explanation> {
        let table = self.inner.current();
        let probe = if settled { Probe::of(input) } else { Probe::of(input).unsettled() };
        let event = &input.event;
        let mut out: Vec<Explanation> = Vec::with_capacity(table.guards.list.len() + table.user.len());
        for guard in &table.guards.list {
            out.push(explained(guard_entry(event, guard), guard, &probe, settled));
        }
        for in_process in [true, false] {
            for hook in table.user.iter().filter(|h| h.in_process() == in_process) {
                let mut explanation = explained(user_entry(event, hook), hook, &probe, settled);
                if explanation.mismatch.is_none() {
                    explanation.allow_dropped = probe.allow_breaker(hook.filter());
                }
                out.push(explanation);
            }
        }
        out
    }
}

fn explained<T: Routable>(mut entry: PreviewEntry, item: &T, probe: &Probe<'_>, settled: bool) -> Explanation {
    if settled {
        // Tested, not left as conditions.
        entry.conditions.clear();
    }
    Explanation { entry, events: item.events().to_vec(), mismatch: mismatch(item, probe), allow_dropped: None }
}

/// Why `item` does not fire for the probe: another event, else the routing test's refusal, with what it tested.
fn mismatch<T: Routable>(item: &T, probe: &Probe<'_>) -> Option<Mismatch> {
    if !item.events().contains(probe.event()) {
        return Some(Mismatch::Event { events: item.events().to_vec() });
    }
    let filter = item.filter();
    Some(match probe.refusal(filter)? {
        Refusal::NotFailed => Mismatch::NotFailed,
        Refusal::Condition => Mismatch::Condition {
            condition: filter.condition.as_ref().map(|c| c.as_str().to_owned()).unwrap_or_default(),
        },
        Refusal::Command => Mismatch::Command {
            patterns: filter.command.as_ref().map(|c| c.canonical().to_string()).unwrap_or_default(),
        },
        Refusal::Scope => Mismatch::Scope { scope: filter.scope },
        Refusal::Tools => {
            Mismatch::Tools { tools: filter.tools.clone().unwrap_or_default(), tested: probe.tested_tools() }
        }
        Refusal::Matcher => Mismatch::Matcher {
            pattern: filter.matcher.as_ref().map(|m| m.pattern.clone()).unwrap_or_default(),
            protocol: filter.protocol,
            tested: probe.tested_by_matcher(filter.protocol),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Evaluation, Registration};

    fn pass() -> impl Fn(&EventInput, &[hook_types::Effect]) -> Result<Evaluation, crate::pipeline::EvalError> {
        |_: &EventInput, _: &[hook_types::Effect]| Ok(Evaluation::pass())
    }

    /// What matches in an explanation is what the routing index picks for a preview, for every tool and event.
    #[test]
    fn the_hooks_an_explanation_matches_are_the_ones_a_preview_lists() {
        let workspace = tempfile::tempdir().unwrap();
        let pipeline = Pipeline::builder()
            .workspace(workspace.path())
            .host(Registration::in_process("g.shell", [Event::PreTool], pass()).tools(["shell"]))
            .host(Registration::in_process("g.any", [Event::PreTool, Event::PostTool], pass()))
            .host(Registration::in_process("g.end", [Event::TurnEnd], pass()))
            .build()
            .unwrap();
        for event in [Event::PreTool, Event::PostTool, Event::TurnEnd, Event::SessionStart] {
            for tool in ["Bash", "shell", "write", "run_shell_command"] {
                let input = if event.is_tool_event() {
                    EventInput::new(event.clone()).with_tool(tool, serde_json::json!({}))
                } else {
                    EventInput::new(event.clone())
                };
                let matched: Vec<String> = pipeline
                    .explain(&input, false)
                    .into_iter()
                    .filter(|e| e.mismatch.is_none())
                    .map(|e| e.entry.id)
                    .collect();
                let value = event.is_tool_event().then_some(tool);
                let previewed: Vec<String> = pipeline.preview(&event, value).into_iter().map(|e| e.id).collect();
                assert_eq!(matched, previewed, "{event} {tool}");
            }
        }
        let input = EventInput::new(Event::PreTool).with_tool("Bash", serde_json::json!({}));
        let shell = &pipeline.explain(&input, true)[0];
        assert_eq!(shell.mismatch, None, "Bash reads as shell");
        let end = &pipeline.explain(&input, true)[2];
        assert_eq!(end.mismatch.as_ref().map(Mismatch::describe).as_deref(), Some("listens to turn_end"));
    }
}
