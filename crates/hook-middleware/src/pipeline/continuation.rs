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
//! expired (read as empty). A session file that cannot be read or written keeps the count in memory for this
//! process and says so in the dispatch's diagnostics; it never fails a dispatch.
//!
//! A dispatch without a session id is counted under one shared anonymous chain.

use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What the cap says about one turn_end's request to continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Allowed: this is continuation `n` in a row.
    Granted(u32),
    /// Refused: the session already had `cap` in a row.
    Refused(u32),
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

impl Sessions {
    /// Session state kept in files under `dir` (created when first needed).
    pub(crate) fn in_dir(dir: PathBuf) -> Sessions {
        Sessions { memory: Mutex::default(), dir: Some(dir) }
    }

    /// A new user prompt: forget the session's chain, unless `prompt` is the continuation message itself. Allocates
    /// nothing when the pipeline keeps no state.
    pub(crate) fn turn_started(&self, session: Option<&str>, prompt: Option<&str>, problems: &mut Vec<String>) {
        if self.dir.is_none() && self.memory.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
            return;
        }
        self.update(session, problems, |state| {
            let returning = prompt.is_some_and(|p| state.continued_with.contains(&digest(p.trim())));
            if !returning {
                state.chain = 0;
                state.continued_with.clear();
            }
        });
    }

    /// A turn_end dispatch finished: `requested` says whether its result asks to continue.
    pub(crate) fn turn_ended(
        &self,
        session: Option<&str>,
        stop_hook_active: bool,
        messages: &[&str],
        cap: u32,
        problems: &mut Vec<String>,
    ) -> Option<Admission> {
        self.update(session, problems, |state| {
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
        })
    }

    /// Of `keys` (skipped guards, `<hook id>:<status>`), those this session's user has not been told about yet; they
    /// count as told from now on. With `always`, or without a session id (nothing tells one caller from the next),
    /// every key is returned.
    pub(crate) fn first_notices(
        &self,
        session: Option<&str>,
        keys: Vec<String>,
        always: bool,
        problems: &mut Vec<String>,
    ) -> Vec<String> {
        if keys.is_empty() || session.is_none() {
            return keys;
        }
        self.update(session, problems, |state| {
            let fresh: Vec<String> = keys.iter().filter(|k| always || !state.notified.contains(*k)).cloned().collect();
            state.notified.extend(keys.iter().cloned());
            fresh
        })
    }

    /// Runs `change` on the session's state and keeps the result: under the file's lock when the state lives in a
    /// directory, in memory otherwise (or when the file cannot be used, with a line in `problems`).
    fn update<T>(
        &self,
        session: Option<&str>,
        problems: &mut Vec<String>,
        change: impl FnOnce(&mut Session) -> T,
    ) -> T {
        let key = session.unwrap_or("");
        if let Some(dir) = &self.dir {
            match SessionFile::open(dir, key) {
                Ok(mut file) => match file.update(change) {
                    Ok((value, None)) => return value,
                    Ok((value, Some(err))) => {
                        problems.push(format!("session state `{}` was not saved: {err}", file.path.display()));
                        return value;
                    }
                    Err((err, change)) => {
                        problems.push(format!("session state `{}`: {err}; counted in memory", file.path.display()));
                        return self.update_memory(key, change);
                    }
                },
                Err(err) => problems.push(format!("session state under `{}`: {err}; counted in memory", dir.display())),
            }
        }
        self.update_memory(key, change)
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

/// One session's file, open and exclusively locked until dropped.
struct SessionFile {
    path: PathBuf,
    file: std::fs::File,
}

impl SessionFile {
    /// Opens (creating) the file of session `key` under `dir` and takes its lock. The name is a digest of the
    /// session id, so any id makes a safe file name.
    fn open(dir: &Path, key: &str) -> std::io::Result<SessionFile> {
        std::fs::create_dir_all(dir)?;
        let name = hex::encode(&Sha256::digest(key.as_bytes())[..16]);
        let path = dir.join(name);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            // A link planted in the file's place is not followed.
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&path)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        Ok(SessionFile { path, file })
    }

    /// Reads the state (empty when new, expired or unreadable), applies `change` and writes it back; a write that
    /// failed comes back beside the value (the decision stands; only keeping it failed).
    fn update<T, F: FnOnce(&mut Session) -> T>(
        &mut self,
        change: F,
    ) -> Result<(T, Option<std::io::Error>), (std::io::Error, F)> {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let mut text = String::new();
        if let Err(err) = self.file.read_to_string(&mut text) {
            return Err((err, change));
        }
        let mut state: Session = serde_json::from_str(&text).unwrap_or_default();
        if now.saturating_sub(state.updated) > EXPIRY_SECS {
            state = Session::default();
        }
        let value = change(&mut state);
        if state.notified.len() > MAX_NOTIFIED {
            state.notified.clear();
        }
        state.updated = now;
        let bytes = serde_json::to_vec(&state).unwrap_or_default();
        let written = self.file.rewind().and_then(|()| self.file.set_len(0)).and_then(|()| self.file.write_all(&bytes));
        Ok((value, written.err()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sessions: &Sessions) {
        let mut p = Vec::new();
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
        assert!(p.is_empty(), "{p:?}");
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
        let mut p = Vec::new();
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
        let mut p = Vec::new();
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
        let mut p = Vec::new();
        assert_eq!(sessions.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(1)));
        assert_eq!(sessions.turn_ended(Some("s"), false, &["go"], 3, &mut p), Some(Admission::Granted(2)));
        assert!(p.iter().any(|line| line.contains("counted in memory")), "{p:?}");
    }
}
