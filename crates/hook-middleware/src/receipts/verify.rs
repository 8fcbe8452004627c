//! Checking a receipt log's chain: [`verify`] reads the rotated segments and the live log as one chain and says
//! where, and how, it first breaks, and how many receipts its sink could not write. Also [`tail`], for reading the
//! newest receipts back.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use hook_config::locked::{self, LockKind};
use hook_types::Receipt;
use serde::Serialize;

use super::chain::{GENESIS, Head, link};
use super::file::{FileLine, rotated_path, sidecar};
use super::gaps::{self, Missing};

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Lines read, over every segment.
    pub lines: u64,
    /// The files read as one chain, oldest first (`<log>.N` … `<log>.1`, `<log>`).
    pub segments: Vec<PathBuf>,
    /// The `seq` of the first line read: 1 when the chain's start is present, more when rotation has dropped the
    /// oldest segments (which the chain cannot tell from someone deleting them).
    pub first_seq: Option<u64>,
    /// Whether the head carries a seal, i.e. the log was written with a host key.
    pub sealed: bool,
    /// The first place the chain breaks, or `None` when it is intact.
    pub broken: Option<ChainBreak>,
    /// Receipts the sink could not write (marked in `<log>.gaps`), or `None` when none is known to be missing.
    /// They break no link: the chain holds what was written.
    pub missing: Option<Missing>,
}

impl VerifyReport {
    /// Whether the log is intact: its chain holds from its first line to the head, and no receipt is known to be
    /// missing. A log with a sound chain but receipts that were never written is incomplete, not intact.
    pub fn is_intact(&self) -> bool {
        self.chain_intact() && self.missing.is_none()
    }

    /// Whether the chain holds from its first line to the head, whatever is missing.
    pub fn chain_intact(&self) -> bool {
        self.broken.is_none()
    }
}

/// Where and how a chain breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainBreak {
    /// The segment holding the line.
    pub path: PathBuf,
    /// The line's number in that file, from 1; for a break at the end, the line after the last one present.
    pub line: u64,
    /// What kind of damage.
    pub kind: BreakKind,
    /// What exactly does not match, for a person.
    pub detail: String,
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.path.display(), self.line, self.kind.as_str(), self.detail)
    }
}

/// The kind of damage a [`ChainBreak`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakKind {
    /// The line's bytes changed since it was written: its link no longer matches what the next line (or the head)
    /// recorded, while the `seq`s around it run on without a gap.
    Edited,
    /// Lines are missing before this one (its `seq` jumps), or missing from the start of a log never rotated.
    Removed,
    /// This line was not written by the chain at this place: the next line links past it.
    Inserted,
    /// The line links to a line that comes later, or its `seq` goes backwards.
    Reordered,
    /// Lines are missing at the end: the head records a later line than the last one present, or the last line
    /// has no newline.
    CutOff,
    /// The chain starts over here (`prev` is 64 zeros): the head was missing or unreadable when this line was
    /// written.
    Restarted,
    /// The line is not a receipt line (not JSON, no `seq` or `prev`, an interrupted write).
    Malformed,
    /// The head file is missing, unreadable, unsealed or wrongly sealed under the key, or lags behind the log.
    Head,
}

impl BreakKind {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            BreakKind::Edited => "edited",
            BreakKind::Removed => "removed",
            BreakKind::Inserted => "inserted",
            BreakKind::Reordered => "reordered",
            BreakKind::CutOff => "cut_off",
            BreakKind::Restarted => "restarted",
            BreakKind::Malformed => "malformed",
            BreakKind::Head => "head",
        }
    }
}

/// The error returned by [`verify`] and [`tail`] when the log cannot be read at all (damage is a [`ChainBreak`],
/// not an error).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Neither the log, nor a rotated segment, nor the head exists.
    #[error("no receipt log at {}", .log.display())]
    NotFound {
        /// The log asked for.
        log: PathBuf,
    },
    /// A file exists but could not be read.
    #[error("reading {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Another process held the log's lock past [`locked::DEFAULT_WAIT`] (10 s): the source says which file and
    /// how to find that process.
    #[error("cannot read {}: {source}", .log.display())]
    Locked {
        /// The log.
        log: PathBuf,
        /// The [`locked::Held`] error.
        #[source]
        source: io::Error,
    },
    /// The head is sealed, so the log was written with a host key, and none was given.
    #[error("{} is sealed with a host key: verify needs the key", .head.display())]
    KeyRequired {
        /// The head file.
        head: PathBuf,
    },
}

/// One line as read: where it is, its link, and its `seq` and `prev` (or why it is not a receipt line).
struct LineMeta {
    segment: usize,
    line: u64,
    link: String,
    parsed: Result<(u64, String), String>,
}

/// Verifies the chain of the receipt log at `log` (its rotated segments and its head included), under `key` if the
/// log was written with one, and reads what `<log>.gaps` says is missing ([`VerifyReport::missing`]). Takes a
/// shared lock so no append lands halfway through the read, waiting for it at most [`locked::DEFAULT_WAIT`]
/// ([`VerifyError::Locked`] then). Reads only regular files, never through a symlink at a segment's place.
///
/// ```
/// use hook_middleware::receipts::{verify, BreakKind, FileSink, ReceiptSink};
/// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
/// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
/// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let log = dir.path().join("log.jsonl");
/// let sink = FileSink::new(&log);
/// for _ in 0..3 {
///     sink.record(&receipt).unwrap();
/// }
/// let text = std::fs::read_to_string(&log).unwrap();
/// let lines: Vec<&str> = text.lines().collect();
/// std::fs::write(&log, format!("{}\n{}\n", lines[0], lines[2])).unwrap(); // drop the middle line
/// let broken = verify(&log, None).unwrap().broken.unwrap();
/// assert_eq!((broken.line, broken.kind), (2, BreakKind::Removed));
/// ```
pub fn verify(log: &Path, key: Option<&[u8]>) -> Result<VerifyReport, VerifyError> {
    let head_path = sidecar(log, ".head");
    // The lock first: the head is rewritten in place under it, so read before it the head could be half written.
    let _lock = lock_shared(log)?;
    let segments = segments(log);
    let head_text = read(&head_path)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let missing = gaps::read(log).map_err(|source| VerifyError::Io { path: gaps::gaps_path(log), source })?;
    if segments.is_empty() && head_text.is_none() {
        return match missing {
            // Nothing was ever written, but something was lost: not intact.
            Some(missing) => Ok(VerifyReport {
                lines: 0,
                segments,
                first_seq: None,
                sealed: false,
                broken: None,
                missing: Some(missing),
            }),
            None => Err(VerifyError::NotFound { log: log.to_owned() }),
        };
    }
    let head = head_text.as_deref().map(|text| Head::parse(text).ok_or(text));
    if key.is_none() && matches!(&head, Some(Ok(head)) if head.seal.is_some()) {
        return Err(VerifyError::KeyRequired { head: head_path });
    }
    let lines = read_lines(&segments, key)?;

    let mut report = VerifyReport {
        lines: lines.len() as u64,
        first_seq: lines.first().and_then(|l| l.parsed.as_ref().ok()).map(|(seq, _)| *seq),
        sealed: matches!(&head, Some(Ok(head)) if head.seal.is_some()),
        broken: None,
        segments,
        missing,
    };
    let at = |meta: &LineMeta, kind, detail: String| ChainBreak {
        path: report.segments[meta.segment].clone(),
        line: meta.line,
        kind,
        detail,
    };
    report.broken = check_links(&lines, report.segments.len() > 1, key.is_some(), &at)
        .or_else(|| check_head(&lines, head, &head_path, key, &report.segments, &at));
    Ok(report)
}

/// Takes a shared lock on `<log>.lock`, if it exists, waiting at most [`locked::DEFAULT_WAIT`]. Opened without
/// waiting on what is there (a FIFO).
fn lock_shared(log: &Path) -> Result<Option<File>, VerifyError> {
    let path = sidecar(log, ".lock");
    let file = match hook_config::platform::open_no_follow(OpenOptions::new().read(true), &path) {
        Ok(file) => file,
        // No lock file: nothing was ever appended under it. One that cannot be opened is read without the lock, as
        // before it existed.
        Err(_) => return Ok(None),
    };
    match locked::flock_within(&file, &path, LockKind::Shared, locked::DEFAULT_WAIT) {
        Ok(()) => Ok(Some(file)),
        Err(source) if locked::held(&source).is_some() => Err(VerifyError::Locked { log: log.to_owned(), source }),
        Err(_) => Ok(None),
    }
}

/// Reads the regular file at `path`, never through a symlink at its place and never waiting on what is there (a
/// FIFO): `None` when it does not exist.
fn read(path: &Path) -> Result<Option<Vec<u8>>, VerifyError> {
    locked::read_no_follow(path).map_err(|source| VerifyError::Io { path: path.to_owned(), source })
}

/// The segments that exist, oldest first: `.1`, `.2`, … up to the first missing, reversed, then the live log.
fn segments(log: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = (1..).map(|n| rotated_path(log, n)).take_while(|p| p.exists()).collect();
    found.reverse();
    if log.exists() {
        found.push(log.to_owned());
    }
    found
}

fn read_lines(segments: &[PathBuf], key: Option<&[u8]>) -> Result<Vec<LineMeta>, VerifyError> {
    let mut lines = Vec::new();
    for (segment, path) in segments.iter().enumerate() {
        let bytes = read(path)?.unwrap_or_default();
        let mut rest = &bytes[..];
        let mut number = 0;
        while !rest.is_empty() {
            number += 1;
            let (line, terminated) = match rest.iter().position(|&b| b == b'\n') {
                Some(end) => (&rest[..end], true),
                None => (rest, false),
            };
            rest = &rest[(line.len() + usize::from(terminated)).min(rest.len())..];
            let parsed = if terminated {
                serde_json::from_slice::<FileLine>(line)
                    .map_err(|e| format!("not a receipt line: {e}"))
                    .and_then(|l| l.receipt.prev.map(|prev| (l.seq, prev)).ok_or_else(|| "no `prev`".to_owned()))
            } else {
                Err("the line has no newline: a write was interrupted or the file was cut mid-line".to_owned())
            };
            lines.push(LineMeta { segment, line: number, link: link(line, key), parsed });
        }
    }
    Ok(lines)
}

/// Walks the links from the first line to the last; the first mismatch is classified by what the `seq`s and the
/// other lines' links say about it.
fn check_links(
    lines: &[LineMeta],
    rotated: bool,
    keyed: bool,
    at: &dyn Fn(&LineMeta, BreakKind, String) -> ChainBreak,
) -> Option<ChainBreak> {
    let position: HashMap<&str, usize> = lines.iter().enumerate().map(|(i, l)| (l.link.as_str(), i)).collect();
    let key_hint = if keyed { "written without this key, or with another" } else { "written with a host key" };
    for (i, meta) in lines.iter().enumerate() {
        let (seq, prev) = match &meta.parsed {
            Ok((seq, prev)) => (*seq, prev.as_str()),
            Err(why) => {
                let kind = if i + 1 == lines.len() && why.starts_with("the line has no newline") {
                    BreakKind::CutOff
                } else {
                    BreakKind::Malformed
                };
                return Some(at(meta, kind, why.clone()));
            }
        };
        if i == 0 {
            if prev == GENESIS && seq != 1 {
                return Some(at(meta, BreakKind::Edited, format!("the chain's first line has seq {seq}, not 1")));
            }
            if prev != GENESIS && !rotated {
                let detail = format!("the log was never rotated but starts at seq {seq}: the lines before it are gone");
                return Some(at(meta, BreakKind::Removed, detail));
            }
            continue;
        }
        let before = &lines[i - 1];
        let seq_before = before.parsed.as_ref().map(|(s, _)| *s).unwrap_or_default();
        if prev == before.link {
            if Some(seq) != seq_before.checked_add(1) {
                return Some(at(meta, BreakKind::Edited, format!("seq {seq} does not follow seq {seq_before}")));
            }
            continue;
        }
        if prev == GENESIS {
            let detail = "the chain starts over here: the head was missing or unreadable when this line was written";
            return Some(at(meta, BreakKind::Restarted, detail.to_owned()));
        }
        if let Some(&j) = position.get(prev) {
            return Some(if j < i {
                // The lines between j and i are not in the chain: blame the first of them.
                let detail =
                    format!("{} line(s) from here were inserted: the line after them links past them", i - 1 - j);
                at(&lines[j + 1], BreakKind::Inserted, detail)
            } else {
                at(meta, BreakKind::Reordered, format!("this line (seq {seq}) links to a line that comes after it"))
            });
        }
        // No line present has the link this one recorded: its predecessor was edited, or lines were removed. The
        // predecessor's own `seq` is suspect, so count from the line before it, whose link did check out.
        let base = if i >= 2 {
            lines[i - 2].parsed.as_ref().map(|(s, _)| *s).unwrap_or_default()
        } else {
            seq_before.saturating_sub(1)
        };
        let expected = base.saturating_add(2);
        return Some(if seq == expected {
            let mut detail = "its link no longer matches the `prev` the next line recorded".to_owned();
            if i == 1 {
                detail.push_str(&format!(" (or the log was {key_hint})"));
            }
            at(before, BreakKind::Edited, detail)
        } else if seq > expected {
            let detail = format!(
                "{} line(s) removed before this one (seq {seq} after seq {})",
                seq - expected,
                base.saturating_add(1)
            );
            at(meta, BreakKind::Removed, detail)
        } else {
            at(meta, BreakKind::Reordered, format!("seq {seq} goes backwards (after seq {seq_before})"))
        });
    }
    None
}

/// Compares the newest line with the head file: the only check that sees lines cut off the end.
fn check_head(
    lines: &[LineMeta],
    head: Option<Result<Head, &str>>,
    head_path: &Path,
    key: Option<&[u8]>,
    segments: &[PathBuf],
    at: &dyn Fn(&LineMeta, BreakKind, String) -> ChainBreak,
) -> Option<ChainBreak> {
    let last = lines.last();
    let past_end = |kind, detail: String| match last {
        Some(meta) => ChainBreak { line: meta.line + 1, ..at(meta, kind, detail) },
        None => {
            ChainBreak { path: segments.last().cloned().unwrap_or_else(|| head_path.to_owned()), line: 1, kind, detail }
        }
    };
    let head = match head {
        None => return Some(past_end(BreakKind::Head, format!("{} is missing", head_path.display()))),
        Some(Err(text)) => {
            let detail = format!("{} is not `<link> <seq>`: {:?}", head_path.display(), text.trim());
            return Some(past_end(BreakKind::Head, detail));
        }
        Some(Ok(head)) => head,
    };
    if let Some(key) = key {
        if head.seal.is_none() {
            return Some(past_end(BreakKind::Head, "the head carries no seal, though a key was given".to_owned()));
        }
        if head.link.is_some() && !head.seal_matches(key) {
            let detail = "the head's seal does not verify under this key: forged, or another key".to_owned();
            return Some(past_end(BreakKind::Head, detail));
        }
    }
    let (last_link, last_seq) = match last.map(|m| (&m.link, &m.parsed)) {
        Some((link, Ok((seq, _)))) => (link.as_str(), *seq),
        _ => (GENESIS, 0),
    };
    if head.records(last_link, last_seq, key) {
        return None;
    }
    let Some(last) = last.filter(|_| head.seq <= last_seq) else {
        let missing = head.seq - last_seq;
        let detail = if missing == 0 {
            format!("the head records a line, seq {}, but the log has none", head.seq)
        } else {
            format!(
                "the head records seq {} but the log ends at seq {last_seq}: {missing} line(s) cut off the end",
                head.seq
            )
        };
        return Some(past_end(BreakKind::CutOff, detail));
    };
    if head.seq == last_seq {
        let detail = if key.is_some() && head.link.is_none() {
            "the last line no longer matches the head's seal: edited, or the head forged or sealed with another key"
        } else {
            "the last line no longer matches the head"
        };
        return Some(at(last, BreakKind::Edited, detail.to_owned()));
    }
    // The head lags behind: an append that did not get to update it (killed, a full disk). The links were checked
    // already; if the line the head records is there, the head is a stale cache, not damage.
    let recorded = lines
        .iter()
        .find(|m| matches!(&m.parsed, Ok((seq, _)) if *seq == head.seq) && head.records(&m.link, head.seq, key));
    if recorded.is_some() || head.records(GENESIS, 0, key) {
        return None;
    }
    let detail = format!(
        "the head records seq {}, but the log runs on to seq {last_seq} and holds no line the head records",
        head.seq
    );
    Some(at(last, BreakKind::Head, detail))
}

/// The newest `n` receipts of the log at `log` (rotated segments included), oldest first. Lines that are not
/// receipts are skipped: use [`verify`] to find them.
///
/// ```
/// use hook_middleware::receipts::{tail, FileSink, ReceiptSink};
/// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
/// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
/// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let sink = FileSink::new(dir.path().join("log.jsonl"));
/// for _ in 0..5 {
///     sink.record(&receipt).unwrap();
/// }
/// assert_eq!(tail(sink.path(), 2).unwrap().len(), 2);
/// ```
pub fn tail(log: &Path, n: usize) -> Result<Vec<Receipt>, VerifyError> {
    let segments = segments(log);
    if segments.is_empty() {
        return Err(VerifyError::NotFound { log: log.to_owned() });
    }
    let mut newest = Vec::new();
    for path in segments.iter().rev() {
        let text = read(path)?.unwrap_or_default();
        let receipts = text.split(|&b| b == b'\n').rev().filter_map(|l| serde_json::from_slice::<FileLine>(l).ok());
        newest.extend(receipts.map(|l| l.receipt).take(n - newest.len()));
        if newest.len() == n {
            break;
        }
    }
    newest.reverse();
    Ok(newest)
}
