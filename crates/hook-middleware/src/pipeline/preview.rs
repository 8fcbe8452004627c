//! `preview`: what a dispatch would run, in order, and why a matching hook would not — without running anything.

use hook_types::{Event, HookKind, Scope};

use super::Pipeline;
use super::registration::{Action, Filter};
use super::result::{Phase, PreviewEntry};
use super::routing::Probe;
use super::table::{Guard, UserHook};

impl Pipeline {
    /// Lists the hooks a dispatch of `event` would consider, in the order they would start: the guards (fixed,
    /// then host), the in-process user hooks in precedence order, then the command hooks in precedence order (these
    /// run concurrently). `match_value` is the tool name on tool events, `source` on session_start, `trigger` on
    /// compaction. Filters a preview cannot settle (`only_errors`, `scope`) are listed as conditions; a hook that
    /// matches but would not run carries its [`SkipReason`](super::SkipReason).
    ///
    /// ```
    /// use hook_middleware::pipeline::{Evaluation, Phase, Pipeline, Registration};
    /// use hook_types::Event;
    /// let workspace = tempfile::tempdir().unwrap();
    /// let pipeline = Pipeline::builder()
    ///     .workspace(workspace.path())
    ///     .fixed(Registration::in_process("host.sandbox", [Event::PreTool], |_: &_, _: &[_]| Ok(Evaluation::pass())))
    ///     .build()
    ///     .unwrap();
    /// let preview = pipeline.preview(&Event::PreTool, Some("shell"));
    /// assert_eq!(preview.len(), 1);
    /// assert_eq!((preview[0].id.as_str(), preview[0].phase), ("host.sandbox", Phase::Guard));
    /// assert!(pipeline.preview(&Event::PostTool, Some("shell")).is_empty());
    /// ```
    pub fn preview(&self, event: &Event, match_value: Option<&str>) -> Vec<PreviewEntry> {
        let table = self.inner.current();
        let probe = Probe::preview(event, match_value);
        let guards = &table.guards;
        let mut entries: Vec<PreviewEntry> = guards
            .index
            .matching(&guards.list, &probe)
            .into_iter()
            .map(|p| guard_entry(event, &guards.list[p]))
            .collect();
        let users = table.user_index.matching(&table.user, &probe);
        for in_process in [true, false] {
            for &p in &users {
                let hook = &table.user[p];
                if hook.in_process() == in_process {
                    entries.push(user_entry(event, hook));
                }
            }
        }
        entries
    }
}

/// The preview line of a guard, for `event`.
pub(super) fn guard_entry(event: &Event, guard: &Guard) -> PreviewEntry {
    let registration = &guard.registration;
    PreviewEntry {
        id: registration.id.clone(),
        tier: guard.tier,
        phase: Phase::Guard,
        kind: match registration.action {
            Action::InProcess(_) => HookKind::InProcess,
            Action::Command(_) => HookKind::Command,
        },
        origin: None,
        source: registration.source.clone().unwrap_or_else(|| guard.tier.as_str().to_owned()),
        hash: String::new(),
        sequential: false,
        conditions: conditions(event, &registration.filter),
        skip: None,
    }
}

/// The preview line of a user hook, for `event`.
pub(super) fn user_entry(event: &Event, hook: &UserHook) -> PreviewEntry {
    let decl = hook.decl();
    let filter = Filter {
        tools: None,
        protocol: decl.protocol,
        matcher: None,
        condition: decl.condition.clone(),
        command: decl.command.clone(),
        only_errors: decl.filters.only_errors,
        scope: decl.filters.scope,
    };
    PreviewEntry {
        id: decl.id.clone(),
        tier: super::Tier::User,
        phase: if hook.in_process() { Phase::InProcess } else { Phase::Command },
        kind: decl.kind(),
        origin: Some(decl.origin),
        source: decl.source.display().to_string(),
        hash: decl.hash.clone(),
        sequential: decl.sequential,
        conditions: conditions(event, &filter),
        skip: hook.skip,
    }
}

fn conditions(event: &Event, filter: &Filter) -> Vec<String> {
    let mut conditions = Vec::new();
    if let Some(condition) = &filter.condition {
        conditions.push(format!("only when the call matches `{}` (`if`)", condition.as_str()));
    }
    if let Some(command) = &filter.command {
        let interpreter = match command.on_interpreter() {
            Some(answer) => format!(", an interpreter one-liner: {}", answer.as_str()),
            None => String::new(),
        };
        conditions.push(format!(
            "only when the shell command runs {} (`command`; a line not read: {}{interpreter})",
            command.canonical(),
            command.on_unknown().as_str()
        ));
    }
    if *event == Event::PostTool && filter.only_errors {
        conditions.push("only when the tool call failed (`only_errors`)".to_owned());
    }
    if *event == Event::TurnEnd {
        match filter.scope {
            Scope::Main => conditions.push("only for the main agent's run (`scope: main`)".to_owned()),
            Scope::Subagent => conditions.push("only for subagent runs (`scope: subagent`)".to_owned()),
            Scope::Any => {}
        }
    }
    conditions
}
