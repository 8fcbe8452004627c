//! The turn_end continuation cap: a Stop hook cannot keep a run going forever.
//!
//! The pipeline counts, per session id, the turn_end dispatches in a row whose result asks to continue (a surviving
//! `request_continuation`). Once a session has had `Limits::continuation_cap` of them in a row (default 3), the next
//! request is refused: its `request_continuation` effects are dropped, its hook gets a Warning entry, the dispatch a
//! diagnostic, and the count starts again. The chain is broken — the count forgotten — by a turn_end that asks for
//! nothing, and by a turn_start of the same session (a new user prompt is a new run).
//!
//! The count does not depend on the host setting `stop_hook_active` (a host that never sets it must not get an
//! endless loop). When the host does set it and the pipeline holds no count — a fresh pipeline per event, as in a
//! bridge process — the dispatch counts as at least the second in its chain; such a host should keep one pipeline
//! alive per session to get the exact cap. A dispatch without a session id is counted under one shared anonymous
//! chain.

use std::collections::HashMap;
use std::sync::Mutex;

/// What the cap says about one turn_end's request to continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Allowed: this is continuation `n` in a row.
    Granted(u32),
    /// Refused: the session already had `cap` in a row.
    Refused(u32),
}

/// Continuation counts per session.
#[derive(Debug, Default)]
pub(crate) struct Continuations {
    chains: Mutex<HashMap<String, u32>>,
}

impl Continuations {
    /// A new user prompt: forget the session's chain. Allocates nothing.
    pub(crate) fn turn_started(&self, session: Option<&str>) {
        let mut chains = self.chains.lock().unwrap_or_else(|e| e.into_inner());
        if !chains.is_empty() {
            chains.remove(session.unwrap_or(""));
        }
    }

    /// A turn_end dispatch finished: `requested` says whether its result asks to continue.
    pub(crate) fn turn_ended(
        &self,
        session: Option<&str>,
        stop_hook_active: bool,
        requested: bool,
        cap: u32,
    ) -> Option<Admission> {
        let key = session.unwrap_or("");
        let mut chains = self.chains.lock().unwrap_or_else(|e| e.into_inner());
        if !requested {
            chains.remove(key);
            return None;
        }
        let so_far = chains.get(key).copied().unwrap_or(0).max(u32::from(stop_hook_active));
        if so_far >= cap {
            chains.remove(key);
            return Some(Admission::Refused(cap));
        }
        chains.insert(key.to_owned(), so_far + 1);
        Some(Admission::Granted(so_far + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_continuations_in_a_row_and_forgets_on_a_break_or_a_new_prompt() {
        let c = Continuations::default();
        let s = Some("s1");
        assert_eq!(c.turn_ended(s, false, true, 3), Some(Admission::Granted(1)));
        assert_eq!(c.turn_ended(s, true, true, 3), Some(Admission::Granted(2)));
        assert_eq!(c.turn_ended(s, true, true, 3), Some(Admission::Granted(3)));
        assert_eq!(c.turn_ended(s, true, true, 3), Some(Admission::Refused(3)));
        // Refusing ended the run: the next request starts a new chain.
        assert_eq!(c.turn_ended(s, false, true, 3), Some(Admission::Granted(1)));
        // Another session has its own chain.
        assert_eq!(c.turn_ended(Some("s2"), false, true, 3), Some(Admission::Granted(1)));
        c.turn_started(s);
        assert_eq!(c.turn_ended(s, false, true, 3), Some(Admission::Granted(1)));
        assert_eq!(c.turn_ended(s, false, false, 3), None);
        // A host that says stop_hook_active to a pipeline that remembers nothing: at least the second.
        assert_eq!(c.turn_ended(s, true, true, 3), Some(Admission::Granted(2)));
        assert_eq!(c.turn_ended(None, false, true, 0), Some(Admission::Refused(0)));
    }
}
