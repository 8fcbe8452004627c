//! What the pipeline remembers per session: the turn_end continuation chain, and which skipped guards the session's
//! user has already been told about.
//!
//! **The continuation cap.** The pipeline counts, per session id, the turn_end dispatches in a row whose result asks
//! to continue (a surviving `request_continuation`). Once a session has had `Limits::continuation_cap` of them in a
//! row (default 3), the next request is refused: its `request_continuation` effects are dropped, its hook gets a
//! Warning entry, the dispatch a notice for the agent's user — and so is every further request of the chain: an
//! agent that ignores the refusal and calls again is refused again, never looped. The chain is broken — the count
//! forgotten — by a turn_end that asks for nothing, and by a turn_start of the same session (a new user prompt is a
//! new run) — but not by a turn_start whose prompt is the continuation message itself: Gemini CLI submits the
//! continuation as the next prompt and fires its BeforeAgent hooks for it. The host's `stop_hook_active` counts as
//! at least the second in a chain.
//!
//! **Where it lives.** The count is the session's, not the process's. By default a pipeline keeps it in memory,
//! which is right for a host that keeps one pipeline per session. A process that runs one event and exits — `hook
//! bridge`, one process per agent call — gives the pipeline a state directory
//! ([`crate::PipelineBuilder::session_state`]): each session is then one small file there, read and written under an
//! exclusive lock, so concurrent processes of one session never lose a count. A file not touched for a day is
//! expired: read as empty, and removed by the next sweep (`file::sweep`), so the directory holds the sessions of
//! the last day, not every session ever seen. A session's first turn_start finds no file and creates none.
//!
//! **When the state cannot be had.** Any process of the same user can take the `flock` of a session file and keep
//! it. The lock is waited for at most [`LOCK_WAIT`] (2 s; a quarter of [`Limits::dispatch_deadline_ms`] when that
//! is shorter), once per dispatch: after one lock not had, the rest of the dispatch goes without the file. What
//! then happens depends on the event ([`StateAccess`]):
//! - a gate (turn_start, pre_tool) that needed its session's state **denies**, its reason naming the file, that
//!   another process holds its lock, and how to find that process: a guard does not go ahead on a state it could
//!   not read;
//! - a turn_end that asks to continue has its request **refused**, as the cap refuses one, with a notice saying
//!   why: a count that cannot be read must not become a loop that nothing stops;
//! - any other event goes on with the state kept in memory for this process, and says so in the dispatch's
//!   diagnostics (a bridge shows them to the agent's user).
//!
//! A session file that cannot be read or written for any other reason (the directory cannot be made, a full disk)
//! keeps the count in memory for this process and says so in the dispatch's diagnostics; it never fails a dispatch.
//! Anything but a regular file at a session file's place (a symlink, a FIFO) is such a failure, never followed or
//! waited on.
//!
//! A dispatch without a session id is counted under one shared anonymous chain.

mod file;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use hook_config::locked::{self, Held};
use hook_types::{Effect, Event, EventClass, Limits, Verdict};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::result::DispatchResult;
use file::{SessionFile, session_path};

/// How long a dispatch waits at most for a session file another process holds locked: long next to an honest
/// holder (a bridge holds it for one read and one write, well under a millisecond), short next to the dispatch
/// deadline (60 s by default) and an agent's hook timeout (60 s for Claude Code, the shortest of the bridged
/// agents' defaults), so a gate facing a held lock still answers — a deny — in about 2 s.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(2);

/// What the cap says about one turn_end's request to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Allowed: this is continuation `n` in a row.
    Granted(u32),
    /// Refused: the session already had `cap` in a row.
    Refused(u32),
    /// Refused: the session's count could not be read, another process holding its lock.
    Uncounted(Held),
}

impl Admission {
    /// For a refusal, the Warning entry for the hooks that asked and the notice for the agent's user.
    pub(crate) fn refusal(&self) -> Option<(String, String)> {
        match self {
            Admission::Granted(_) => None,
            Admission::Refused(cap) => Some((
                format!("its request_continuation was refused: the session already continued {cap} times in a row"),
                format!(
                    "a hook asked to keep going after {cap} continuations in a row; the cap of {cap} stopped it here"
                ),
            )),
            Admission::Uncounted(held) => Some((
                "its request_continuation was refused: the session's continuation count could not be read".to_owned(),
                format!(
                    "a hook asked to keep going, but this session's continuation count cannot be read, so the agent \
                     stops here rather than risk a loop nothing caps: {held}"
                ),
            )),
        }
    }
}

/// One dispatch's use of the session state: how long it may wait for a lock, what went wrong, and whether a lock
/// was not had (then later uses in the same dispatch do not wait again).
#[derive(Debug)]
pub(crate) struct StateAccess {
    wait: Duration,
    problems: Vec<String>,
    held: Option<Held>,
}

impl StateAccess {
    /// The access of one dispatch under `limits`: waits up to [`LOCK_WAIT`], or a quarter of the dispatch deadline
    /// when that is shorter.
    pub(crate) fn new(limits: &Limits) -> StateAccess {
        let wait = LOCK_WAIT.min(Duration::from_millis(limits.dispatch_deadline_ms / 4));
        StateAccess { wait, problems: Vec::new(), held: None }
    }

    /// On a gate event whose session state was locked by another process: the deny's reason.
    pub(crate) fn gate_denial(&self, event: &Event) -> Option<String> {
        let held = self.held.as_ref().filter(|_| event.class() == EventClass::Gate)?;
        Some(format!(
            "this session's state cannot be read, so this gate fails closed until it can: {held}; or delete `{}` \
             (the session then starts its count over)",
            held.path.display()
        ))
    }

    /// Puts what happened into `result`: the problems into its diagnostics, and on a gate whose state was locked
    /// by another process a deny (which drops every rewrite and allow, as any deny does).
    pub(crate) fn settle(self, event: &Event, result: &mut DispatchResult) {
        if let Some(reason) = self.gate_denial(event) {
            result.verdict = Verdict::Deny;
            result.reason = Some(reason);
            result.effects.retain(|e| !matches!(e, Effect::RewriteToolInput { .. } | Effect::AllowTool { .. }));
        }
        result.diagnostics.extend(self.problems);
    }
}

/// One session's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Session {
    /// Continuations in a row.
    #[serde(default)]
    chain: u32,
    /// Digests of the messages the chain's last continuation was granted with: a turn_start with one of them as its
    /// prompt is that continuation coming back, not a new prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    continued_with: Vec<String>,
    /// Notices already given to this session's user: skipped guards (`<hook id>:<status>`), tools the agent's table
    /// does not know (`unknown-tool:<agent>:<tool>`, the `unknown_tool` module).
    #[serde(default)]
    notified: BTreeSet<String>,
    /// When the state was last written (seconds since the epoch).
    #[serde(default)]
    updated: u64,
}

/// The most skipped guards one session file remembers as announced; past it the list starts again (the user is
/// told again, never less).
const MAX_NOTIFIED: usize = 1_024;

/// How long a session file is kept: a day.
const EXPIRY_SECS: u64 = 24 * 60 * 60;

/// Session state per session id: in memory, or in a directory shared by every process of a workspace.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    memory: Mutex<HashMap<String, Session>>,
    dir: Option<PathBuf>,
}

/// Whether an update makes the session's file when it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// Make it.
    Create,
    /// Leave it missing: the change is about state the session does not have yet.
    Skip,
}

impl Sessions {
    /// Session state kept in files under `dir` (created when first needed).
    pub(crate) fn in_dir(dir: PathBuf) -> Sessions {
        Sessions { memory: Mutex::default(), dir: Some(dir) }
    }

    /// A new user prompt: forget the session's chain, unless `prompt` is the continuation message itself. Allocates
    /// nothing when the pipeline keeps no state; makes no file for a session that has none (nothing to forget).
    pub(crate) fn turn_started(&self, session: Option<&str>, prompt: Option<&str>, access: &mut StateAccess) {
        if self.dir.is_none() && self.memory.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
            return;
        }
        self.update(session, Missing::Skip, access, |state| {
            let returning = prompt.is_some_and(|p| state.continued_with.contains(&digest(p.trim())));
            if !returning {
                state.chain = 0;
                state.continued_with.clear();
            }
        });
    }

    /// A turn_end dispatch finished: `requested` says whether its result asks to continue. A request whose count
    /// could not be read (its file locked by another process) is refused.
    pub(crate) fn turn_ended(
        &self,
        session: Option<&str>,
        stop_hook_active: bool,
        messages: &[&str],
        cap: u32,
        access: &mut StateAccess,
    ) -> Option<Admission> {
        let admission = self.update(session, Missing::Create, access, |state| {
            if messages.is_empty() {
                state.chain = 0;
                state.continued_with.clear();
                return None;
            }
            state.continued_with = messages.iter().map(|m| digest(m.trim())).collect();
            state.continued_with.push(digest(messages.join("\n").trim()));
            let so_far = state.chain.max(u32::from(stop_hook_active));
            if so_far >= cap {
                state.chain = so_far;
                return Some(Admission::Refused(cap));
            }
            state.chain = so_far + 1;
            Some(Admission::Granted(so_far + 1))
        });
        match (&access.held, admission) {
            (Some(held), Some(_)) => Some(Admission::Uncounted(held.clone())),
            (_, admission) => admission,
        }
    }

    /// Of `keys` (skipped guards, `<hook id>:<status>`), those this session's user has not been told about yet; they
    /// count as told from now on. With `always`, or without a session id (nothing tells one caller from the next),
    /// every key is returned.
    pub(crate) fn first_notices(
        &self,
        session: Option<&str>,
        keys: Vec<String>,
        always: bool,
        access: &mut StateAccess,
    ) -> Vec<String> {
        if keys.is_empty() || session.is_none() {
            return keys;
        }
        self.update(session, Missing::Create, access, |state| {
            let fresh: Vec<String> = keys.iter().filter(|k| always || !state.notified.contains(*k)).cloned().collect();
            state.notified.extend(keys.iter().cloned());
            fresh
        })
    }

    /// Runs `change` on the session's state and keeps the result: under the file's lock when the state lives in a
    /// directory, in memory otherwise (or when the file cannot be used, with a line in `access`; once a lock was
    /// not had in this dispatch, without trying again).
    fn update<T>(
        &self,
        session: Option<&str>,
        missing: Missing,
        access: &mut StateAccess,
        change: impl FnOnce(&mut Session) -> T,
    ) -> T {
        let key = session.unwrap_or("");
        let Some(dir) = self.dir.as_deref().filter(|_| access.held.is_none()) else {
            return self.update_memory(key, change);
        };
        let mut file = match SessionFile::open(dir, key, missing, access.wait) {
            Ok(Some(file)) => file,
            Ok(None) => return self.update_memory(key, change),
            Err(err) => {
                let path = session_path(dir, key);
                match locked::held(&err) {
                    Some(held) => {
                        access.held = Some(held.clone());
                        access.problems.push(format!("session state: {err}; kept in memory for this call"));
                    }
                    None => {
                        access.problems.push(format!("session state `{}`: {err}; counted in memory", path.display()))
                    }
                }
                return self.update_memory(key, change);
            }
        };
        match file.update(change) {
            Ok((value, None)) => value,
            Ok((value, Some(err))) => {
                access.problems.push(format!("session state `{}` was not saved: {err}", file.path.display()));
                value
            }
            Err((err, change)) => {
                access.problems.push(format!("session state `{}`: {err}; counted in memory", file.path.display()));
                self.update_memory(key, change)
            }
        }
    }

    fn update_memory<T>(&self, key: &str, change: impl FnOnce(&mut Session) -> T) -> T {
        let mut sessions = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        let state = sessions.entry(key.to_owned()).or_default();
        let value = change(state);
        if *state == Session::default() {
            sessions.remove(key);
        }
        value
    }
}

/// A continuation message as the session file keeps it: a digest, never the text.
fn digest(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..16])
}

#[cfg(test)]
mod tests {
    use std::fs::{self, File};
    use std::path::Path;

    use hook_config::locked::LockKind;

    use super::*;

    fn access() -> StateAccess {
        StateAccess::new(&Limits::default())
    }

    fn check(sessions: &Sessions) {
        let mut p = access();
        let s = Some("s1");
        assert_eq!(sessions.turn_ended(s, false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        assert_eq!(sessions.turn_ended(s, true, &["go"], 3, &mut p), Some(Admission::Granted(2)));
        assert_eq!(sessions.turn_ended(s, true, &["go"], 3, &mut p), Some(Admission::Granted(3)));
        assert_eq!(sessions.turn_ended(s, true, &["go"], 3, &mut p), Some(Admission::Refused(3)));
        // An agent that calls again in the same chain is refused again.
        assert_eq!(sessions.turn_ended(s, true, &["go"], 3, &mut p), Some(Admission::Refused(3)));
        // A turn_end that asks for nothing breaks the chain.
        assert_eq!(sessions.turn_ended(s, false, &[], 3, &mut p), None);
        assert_eq!(sessions.turn_ended(s, false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        // Another session has its own chain.
        assert_eq!(sessions.turn_ended(Some("s2"), false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        sessions.turn_started(s, Some("a new prompt"), &mut p);
        assert_eq!(sessions.turn_ended(s, false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        assert_eq!(sessions.turn_ended(s, false, &[], 3, &mut p), None);
        // A host that says stop_hook_active to a pipeline that remembers nothing: at least the second.
        assert_eq!(sessions.turn_ended(s, true, &["go"], 3, &mut p), Some(Admission::Granted(2)));
        assert_eq!(sessions.turn_ended(None, false, &["go"], 0, &mut p), Some(Admission::Refused(0)));
        // Notices: each skipped guard once per session, all of them again when asked.
        let keys = vec!["a:untrusted".to_owned(), "b:modified".to_owned()];
        assert_eq!(sessions.first_notices(s, keys.clone(), false, &mut p), keys);
        assert!(sessions.first_notices(s, keys.clone(), false, &mut p).is_empty());
        assert_eq!(sessions.first_notices(s, keys.clone(), true, &mut p), keys);
        assert_eq!(sessions.first_notices(Some("s2"), keys.clone(), false, &mut p), keys);
        assert!(p.problems.is_empty() && p.held.is_none(), "{p:?}");
    }

    #[test]
    fn caps_continuations_in_a_row_and_forgets_on_a_break_or_a_new_prompt_in_memory() {
        check(&Sessions::default());
    }

    #[test]
    fn caps_continuations_in_a_row_and_forgets_on_a_break_or_a_new_prompt_in_files() {
        let dir = tempfile::tempdir().unwrap();
        check(&Sessions::in_dir(dir.path().join("sessions")));
    }

    #[test]
    fn a_turn_start_whose_prompt_is_the_continuation_message_keeps_the_chain() {
        let sessions = Sessions::default();
        let mut p = access();
        let s = Some("s");
        for n in 1..=3 {
            assert_eq!(sessions.turn_ended(s, n > 1, &["keep going"], 3, &mut p), Some(Admission::Granted(n)));
            // Gemini CLI submits the continuation as the next prompt.
            sessions.turn_started(s, Some("keep going\n"), &mut p);
        }
        assert_eq!(sessions.turn_ended(s, true, &["keep going"], 3, &mut p), Some(Admission::Refused(3)));
        sessions.turn_started(s, Some("something else"), &mut p);
        assert_eq!(sessions.turn_ended(s, false, &["keep going"], 3, &mut p), Some(Admission::Granted(1)));
    }

    #[test]
    fn separate_processes_of_one_session_share_the_count_through_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = access();
        for expected in [1, 2, 3] {
            // A fresh Sessions per call: what each bridge process has.
            let fresh = Sessions::in_dir(dir.path().to_path_buf());
            assert_eq!(fresh.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(expected)));
        }
        let fresh = Sessions::in_dir(dir.path().to_path_buf());
        assert_eq!(fresh.turn_ended(Some("s"), true, &["go"], 3, &mut p), Some(Admission::Refused(3)));
        Sessions::in_dir(dir.path().to_path_buf()).turn_started(Some("s"), None, &mut p);
        let fresh = Sessions::in_dir(dir.path().to_path_buf());
        assert_eq!(fresh.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
    }

    #[test]
    fn an_unusable_state_directory_counts_in_memory_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "not a directory").unwrap();
        let sessions = Sessions::in_dir(blocker.join("sessions"));
        let mut p = access();
        assert_eq!(sessions.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        assert_eq!(sessions.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(2)));
        assert!(p.problems.iter().any(|line| line.contains("counted in memory")), "{p:?}");
    }

    /// A dispatch's access that waits 100 ms at most.
    fn quick() -> StateAccess {
        StateAccess::new(&Limits { dispatch_deadline_ms: 400, ..Limits::default() })
    }

    /// Holds the lock of session `key`'s file under `dir` through an open file description of its own, as another
    /// process would.
    fn hold(dir: &Path, key: &str) -> File {
        let path = session_path(dir, key);
        fs::create_dir_all(dir).unwrap();
        fs::write(&path, "{}").unwrap();
        let file = File::open(&path).unwrap();
        locked::flock_within(&file, &path, LockKind::Exclusive, Duration::ZERO).unwrap();
        file
    }

    #[test]
    fn a_session_file_locked_by_another_process_denies_a_gate_refuses_a_continuation_and_waits_once() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::in_dir(dir.path().to_path_buf());
        let holder = hold(dir.path(), "s");
        let mut access = quick();
        let keys = vec!["a:Untrusted".to_owned()];
        // The notice is not lost: told from memory.
        assert_eq!(sessions.first_notices(Some("s"), keys.clone(), false, &mut access), keys);
        let held = access.held.clone().expect("the lock was not had");
        assert_eq!(held.path, session_path(dir.path(), "s"));
        // Once a lock was not had, the rest of the dispatch does not try the file again (it would be free now).
        drop(holder);
        let admission = sessions.turn_ended(Some("s"), false, &["go"], 3, &mut access);
        assert_eq!(admission, Some(Admission::Uncounted(held.clone())));
        assert_eq!(fs::read_to_string(&held.path).unwrap(), "{}");
        let (entry, notice) = admission.unwrap().refusal().unwrap();
        assert!(entry.contains("could not be read") && notice.contains("is locked by another process"), "{notice}");
        let denial = access.gate_denial(&Event::PreTool).expect("a gate denies");
        assert!(denial.contains(&held.path.display().to_string()) && denial.contains("fuser"), "{denial}");
        assert_eq!(access.gate_denial(&Event::PostTool), None);
        assert_eq!(access.gate_denial(&Event::TurnEnd), None);
        assert_eq!(access.problems.len(), 1, "{:?}", access.problems);
        let mut result = DispatchResult::nothing(&Event::TurnStart);
        access.settle(&Event::TurnStart, &mut result);
        assert_eq!(result.verdict, Verdict::Deny);
        assert_eq!(result.diagnostics.len(), 1);
        // Another session's file is not held: it goes on.
        let mut other = quick();
        assert_eq!(sessions.turn_ended(Some("t"), false, &["go"], 3, &mut other), Some(Admission::Granted(1)));
        assert!(other.held.is_none() && other.problems.is_empty(), "{other:?}");
    }

    #[test]
    fn a_first_turn_start_makes_no_file_and_a_fifo_in_a_files_place_is_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::in_dir(dir.path().join("sessions"));
        let mut access = quick();
        sessions.turn_started(Some("new"), Some("hello"), &mut access);
        assert!(!dir.path().join("sessions").exists());
        fs::create_dir_all(dir.path().join("sessions")).unwrap();
        let fifo = session_path(&dir.path().join("sessions"), "piped");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(sessions.turn_ended(Some("piped"), false, &["go"], 3, &mut access), Some(Admission::Granted(1)));
        assert!(access.problems.iter().any(|p| p.contains("not a regular file")), "{:?}", access.problems);
        assert!(access.held.is_none());
    }
}
