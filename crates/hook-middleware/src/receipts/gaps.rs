//! Receipts a [`FileSink`](super::FileSink) could not write, marked so [`verify`](fn@super::verify) can say the log is
//! incomplete: `<log>.gaps`, one JSON line per lost batch.
//!
//! A receipt that cannot be appended (another process held the log's lock past
//! [`FileSinkOptions::lock_timeout`](super::FileSinkOptions::lock_timeout), a full disk) would otherwise leave no
//! trace an auditor can find later. So the sink appends a mark instead: the number of receipts lost, the times of
//! the first and the last of them, and why. The mark is written **without the log's lock** (that lock may be what
//! failed), as one `write` to a file opened with `O_APPEND`: the kernel places each such write at the end of the
//! file whole, so marks from concurrent processes never interleave, and no mark touches the chain. The file is
//! never rotated or rewritten by the engine, is never opened through a symlink or waited on (a FIFO in its place is
//! an error), and stops growing at [`MAX_GAP_BYTES`]; [`Missing::full`] then says that receipts lost since were not
//! counted.
//!
//! Threat model: as for the log itself, whoever can delete files of the state directory can delete the marks.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hook_types::Receipt;
use serde::{Deserialize, Serialize};

use super::file::sidecar;

/// The most bytes `<log>.gaps` grows to: some 4,000 marks.
pub const MAX_GAP_BYTES: u64 = 1024 * 1024;

/// The longest mark line: the reason is cut to fit.
const MAX_MARK_BYTES: usize = 512;

/// One mark: a batch of receipts that could not be written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mark {
    /// The time of the batch's first receipt.
    first: String,
    /// The time of its last receipt.
    last: String,
    /// How many receipts the batch held.
    receipts: u64,
    /// Why they were not written.
    why: String,
}

/// What `<log>.gaps` says is missing from the log: part of [`VerifyReport`](super::VerifyReport).
///
/// ```
/// use hook_middleware::receipts::Missing;
/// let missing = Missing {
///     path: "log.jsonl.gaps".into(),
///     receipts: 3,
///     marks: 2,
///     first: Some("2025-01-01T00:00:00.000Z".into()),
///     last: Some("2025-01-01T00:05:00.000Z".into()),
///     unreadable: 0,
///     full: false,
/// };
/// assert_eq!(missing.to_string(), "3 receipts were not written, from 2025-01-01T00:00:00.000Z to \
///     2025-01-01T00:05:00.000Z (2 marks in log.jsonl.gaps)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing {
    /// The file the marks were read from, `<log>.gaps`.
    pub path: PathBuf,
    /// Receipts not written, as the marks count them (each unreadable line counts one).
    pub receipts: u64,
    /// Marks read: one per batch (one dispatch's receipts) that was lost.
    pub marks: u64,
    /// The time of the earliest receipt not written, as receipts write time (RFC 3339, UTC, milliseconds).
    pub first: Option<String>,
    /// The time of the latest receipt not written.
    pub last: Option<String>,
    /// Lines that are no mark (damaged, or cut by a crash mid-write): each is a gap of at least one receipt.
    pub unreadable: u64,
    /// The file reached [`MAX_GAP_BYTES`]: receipts lost since were not marked, so more may be missing.
    pub full: bool,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        let at_least = if self.full || self.unreadable > 0 { "at least " } else { "" };
        let was = if self.receipts == 1 && at_least.is_empty() { "was" } else { "were" };
        write!(f, "{at_least}{} receipt{} {was} not written", self.receipts, s(self.receipts))?;
        match (&self.first, &self.last) {
            (Some(first), Some(last)) if first == last => write!(f, ", at {first}")?,
            (Some(first), Some(last)) => write!(f, ", from {first} to {last}")?,
            _ => {}
        }
        write!(f, " ({} mark{} in {}", self.marks, s(self.marks), self.path.display())?;
        if self.unreadable > 0 {
            write!(f, ", {} line{} unreadable", self.unreadable, s(self.unreadable))?;
        }
        if self.full {
            write!(f, "; the file is full, so later losses were not counted")?;
        }
        write!(f, ")")
    }
}

/// `<log>.gaps`.
pub(crate) fn gaps_path(log: &Path) -> PathBuf {
    sidecar(log, ".gaps")
}

/// Marks `receipts` as not written to `log`, because of `why`: one line appended to `<log>.gaps` with a single
/// `write`, without the log's lock. Nothing is written once the file holds [`MAX_GAP_BYTES`].
pub(crate) fn mark(log: &Path, receipts: &[Receipt], why: &str) -> io::Result<()> {
    let (Some(first), Some(last)) = (receipts.iter().map(|r| &r.time).min(), receipts.iter().map(|r| &r.time).max())
    else {
        return Ok(());
    };
    let mut mark = Mark { first: first.clone(), last: last.clone(), receipts: receipts.len() as u64, why: why.into() };
    let mut line = serde_json::to_vec(&mark).map_err(io::Error::other)?;
    while line.len() >= MAX_MARK_BYTES && !mark.why.is_empty() {
        let keep = mark.why.len().saturating_sub(line.len() + 1 - MAX_MARK_BYTES + 3);
        let cut = (0..=keep).rev().find(|&i| mark.why.is_char_boundary(i)).unwrap_or(0);
        mark.why.truncate(cut);
        mark.why.push('…');
        line = serde_json::to_vec(&mark).map_err(io::Error::other)?;
    }
    line.push(b'\n');
    let mut file = open(&gaps_path(log), OpenOptions::new().append(true).create(true))?;
    if file.metadata()?.len() + line.len() as u64 > MAX_GAP_BYTES {
        return Err(io::Error::new(io::ErrorKind::StorageFull, format!("it holds {MAX_GAP_BYTES} bytes already")));
    }
    file.write_all(&line)
}

/// Reads `<log>.gaps`: `None` when it does not exist or holds nothing.
pub(crate) fn read(log: &Path) -> io::Result<Option<Missing>> {
    let path = gaps_path(log);
    let bytes = match hook_config::locked::read_no_follow(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut missing = Missing {
        full: bytes.len() as u64 + MAX_MARK_BYTES as u64 > MAX_GAP_BYTES,
        path,
        receipts: 0,
        marks: 0,
        first: None,
        last: None,
        unreadable: 0,
    };
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)) {
        match serde_json::from_slice::<Mark>(line) {
            Ok(mark) => {
                missing.marks += 1;
                missing.receipts = missing.receipts.saturating_add(mark.receipts.max(1));
                if missing.first.as_ref().is_none_or(|first| mark.first < *first) {
                    missing.first = Some(mark.first);
                }
                if missing.last.as_ref().is_none_or(|last| mark.last > *last) {
                    missing.last = Some(mark.last);
                }
            }
            Err(_) => {
                missing.unreadable += 1;
                missing.receipts = missing.receipts.saturating_add(1);
            }
        }
    }
    Ok(Some(missing).filter(|m| m.marks + m.unreadable > 0 || m.full))
}

/// Opens the gap file with mode 0600, never through a symlink at its place and never waiting on what is there (a
/// FIFO); anything but a regular file is an error.
fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let file = hook_config::platform::open_no_follow(options, path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not a regular file"));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt(time: &str) -> Receipt {
        let mut receipt: Receipt = serde_json::from_str(
            r#"{"time":"","hook_id":"h","origin":null,"source":"host","hash":"","event":"pre_tool",
                "kind":"in_process","outcome":"emitted","effects":[],"exit_code":null,"output_bytes":0,
                "tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#,
        )
        .unwrap();
        receipt.time = time.to_owned();
        receipt
    }

    #[test]
    fn marks_from_many_threads_add_up_with_the_first_and_last_time_and_a_long_reason_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        assert_eq!(read(&log).unwrap(), None);
        std::thread::scope(|scope| {
            for i in 0..8 {
                let log = &log;
                scope.spawn(move || {
                    let batch = [receipt(&format!("2025-01-01T00:00:0{i}.000Z")), receipt("2025-01-01T00:00:05.000Z")];
                    mark(log, &batch, &"a reason that goes on ".repeat(100)).unwrap();
                });
            }
        });
        let missing = read(&log).unwrap().unwrap();
        assert_eq!((missing.receipts, missing.marks, missing.unreadable, missing.full), (16, 8, 0, false));
        assert_eq!(missing.first.as_deref(), Some("2025-01-01T00:00:00.000Z"));
        assert_eq!(missing.last.as_deref(), Some("2025-01-01T00:00:07.000Z"));
        let text = std::fs::read_to_string(gaps_path(&log)).unwrap();
        assert!(text.lines().all(|l| l.len() < MAX_MARK_BYTES && l.ends_with("…\"}")), "{text}");
    }

    #[test]
    fn a_damaged_line_counts_as_a_gap_and_a_full_file_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        std::fs::write(gaps_path(&log), "{\"first\":\"2025\nnot json\n").unwrap();
        let missing = read(&log).unwrap().unwrap();
        assert_eq!((missing.receipts, missing.unreadable), (2, 2));
        assert!(missing.to_string().starts_with("at least 2 receipts were not written"), "{missing}");
        std::fs::write(gaps_path(&log), vec![b' '; MAX_GAP_BYTES as usize - 10]).unwrap();
        assert!(mark(&log, &[receipt("t")], "why").is_err());
        let missing = read(&log).unwrap().unwrap();
        assert!(missing.full && missing.marks == 0, "{missing:?}");
        std::fs::write(gaps_path(&log), "\n \n").unwrap();
        assert_eq!(read(&log).unwrap(), None, "whitespace is no mark");
    }
}
