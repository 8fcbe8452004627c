//! An unreadable gate fails closed.
//!
//! A declaration dropped for an error-level issue is a guard that silently does not exist. So when the dropped
//! declaration was on a gate — `pre_tool`, `turn_start`, `permission_request` — that gate is closed: it answers deny
//! with the reason `the hook configuration has errors: <file>:<line>:<col>: <message> (run hook validate)` until the
//! file is fixed. When the declaration's event cannot be determined (a missing or unknown `on`, an entry that is not
//! a hook at all, a file that cannot be read or parsed), every gate is closed: the broken text could have been any
//! of them. A declaration whose event is known and is not a gate closes nothing (it is an error all the same), and
//! neither does one that says `enabled: false`: a disabled guard does not run even when it can be read.
//!
//! Policy decisions, written here where they are enforced:
//!
//! - **Trust does not open a closed gate.** A broken file in an untrusted project still fails closed. A prompt or
//!   effect hook that only narrows runs without trust (a `block_tool` effect, for instance), and an unreadable
//!   declaration cannot say whether it was one, so it is treated as a guard that would have run. The fix is to
//!   repair the file (`hook validate` names the line), not to trust it.
//! - **`only_managed: true`** in the managed file keeps every other origin from running, readable or not: then only
//!   the managed file's own errors close gates.
//! - **Foreign formats** keep their agent's acceptance rules (an agent's own file is read as that agent reads it):
//!   what the agent itself would load is at most a warning here, so only real errors — what the agent would reject
//!   too, or a file it could not parse — close a gate.
//!
//! [`Config::closed_gates`](crate::Config::closed_gates) carries them as data; a pipeline built from the whole
//! [`Config`](crate::Config) (not from its `hooks` alone) answers deny on each closed gate before any user hook can
//! allow anything.

use std::fmt;

use hook_types::{Event, Origin};
use serde::{Deserialize, Serialize};

use crate::model::Issue;

/// The gates: the events whose hooks can deny what happens next.
pub const GATES: [Event; 3] = [Event::TurnStart, Event::PreTool, Event::PermissionRequest];

/// Whether `event` is one of the [`GATES`].
pub fn is_gate(event: &Event) -> bool {
    GATES.contains(event)
}

/// One or more gates closed by a declaration (or a whole file) that could not be read.
///
/// ```
/// use hook_config::{parse_str, FileContext, Format};
/// use hook_types::{Event, Origin};
/// use std::path::Path;
///
/// let cx = FileContext { origin: Origin::Project, workspace: Path::new("/ws"), root: Path::new("/ws"), source_id: None };
/// let yaml = "- on: pre_tool\n  kind: effect\n  effect: { kind: block_tool, reasn: no force pushes }\n";
/// let load = parse_str(yaml, Path::new("/ws/.hooks/hooks.yaml"), Format::Native, &cx);
/// assert!(load.hooks.is_empty());
/// let closed = &load.closed_gates[0];
/// assert_eq!(closed.events, [Event::PreTool]);
/// assert_eq!(
///     closed.reason(),
///     "the hook configuration has errors: /ws/.hooks/hooks.yaml:3:31: hooks[0].effect.reasn: unknown field `reasn` \
///      in effect `block_tool` (did you mean `reason`?) (run hook validate)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedGate {
    /// The gates it closes, in the order of [`GATES`]: one, or all of them when the event could not be determined.
    pub events: Vec<Event>,
    /// The origin of the file.
    pub origin: Origin,
    /// The error-level issue that dropped the declaration (or left the file unread): the root cause, the first one
    /// reported for it.
    pub issue: Issue,
}

impl ClosedGate {
    /// A closed gate for `event`, or for every gate when `event` is `None`; `None` when `event` is not a gate.
    pub(crate) fn for_event(event: Option<&Event>, origin: Origin, issue: &Issue) -> Option<ClosedGate> {
        let events = match event {
            None => GATES.to_vec(),
            Some(event) if is_gate(event) => vec![event.clone()],
            Some(_) => return None,
        };
        Some(ClosedGate { events, origin, issue: issue.clone() })
    }

    /// Every gate, for a file that could not be read at all.
    pub(crate) fn all(origin: Origin, issue: &Issue) -> ClosedGate {
        ClosedGate { events: GATES.to_vec(), origin, issue: issue.clone() }
    }

    /// Whether it closes `event`.
    pub fn closes(&self, event: &Event) -> bool {
        self.events.contains(event)
    }

    /// Where the issue is and what it says: `<file>:<line>:<col>: <field>: <message>`, without the severity.
    pub fn location(&self) -> String {
        Located(&self.issue).to_string()
    }

    /// The deny reason a closed gate answers with.
    pub fn reason(&self) -> String {
        format!("the hook configuration has errors: {} (run hook validate)", self.location())
    }
}

/// The reason a gate closed for one handler that cannot run here (another platform's line, an `mcp_tool` call) denies
/// with: the file, the handler as the file spells it, why, and the fix.
pub(crate) fn unrunnable_reason(source: &std::path::Path, handler: &str, why: &str) -> String {
    format!(
        "a hook that guards this cannot run here: {}: {handler}: {why} (run hook validate; rewrite it as a command \
         hook to open the gate)",
        source.display()
    )
}

/// `file:line:col: field: message` (the position parts only where known).
struct Located<'a>(&'a Issue);

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let issue = self.0;
        write!(f, "{}", issue.source.display())?;
        if let Some(line) = issue.line {
            write!(f, ":{line}")?;
            if let Some(column) = issue.column {
                write!(f, ":{column}")?;
            }
        }
        f.write_str(": ")?;
        if let Some(field) = &issue.field {
            write!(f, "{field}: ")?;
        }
        // One line: a parser's message can span several.
        let mut first = true;
        for line in issue.message.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if !first {
                f.write_str(" ")?;
            }
            f.write_str(line)?;
            first = false;
        }
        Ok(())
    }
}
