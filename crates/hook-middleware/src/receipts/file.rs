//! The JSON-lines receipt log: a hash chain with its head kept beside it, size rotation, a lock around appends.
//!
//! The layout, the locking and the threat model are documented on [`FileSink`].

use std::fs::{self, File, OpenOptions};

use hook_config::platform;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hook_config::locked::{self, LockKind};
use hook_types::Receipt;
use serde::{Deserialize, Serialize};

use super::chain::{GENESIS, Head, HostKey, link};
use super::gaps;
use super::{BatchError, ReceiptSink, SinkError, default_receipt_path};

/// How the file sink rotates, locks and keys its log.
///
/// ```
/// use hook_middleware::receipts::FileSinkOptions;
/// let options = FileSinkOptions { max_bytes: 1 << 20, ..FileSinkOptions::default() };
/// assert_eq!(options.max_rotated, 9);
/// ```
#[derive(Debug, Clone)]
pub struct FileSinkOptions {
    /// Rotate when the live log would grow past this many bytes (default 8 MiB). A single line longer than this
    /// still goes into a log of its own.
    pub max_bytes: u64,
    /// Rotated segments kept (`<log>.1` … `<log>.N`; default 9, at least 1 so the chain can run on).
    pub max_rotated: u32,
    /// A host secret turning every link into an HMAC-SHA256 and sealing the head (default none).
    pub key: Option<HostKey>,
    /// How long an append waits for another process's lock before it fails (default 2 s: well inside the
    /// dispatch deadline, 60 s by default, and an agent's hook timeout). The receipts it held are then marked
    /// missing in `<log>.gaps`.
    pub lock_timeout: Duration,
}

impl Default for FileSinkOptions {
    fn default() -> Self {
        FileSinkOptions { max_bytes: 8 * 1024 * 1024, max_rotated: 9, key: None, lock_timeout: Duration::from_secs(2) }
    }
}

/// Appends receipts to a hash-chained JSON-lines log. Safe to share between threads and processes.
///
/// # Layout
///
/// - `<log>` (default: [`default_receipt_path`](super::default_receipt_path)): one receipt per line, compact JSON,
///   with two fields the file adds: `seq` (1, 2, 3, … over the log's whole life, across rotations) and `prev`, the
///   link of the previous line: sha256 of its exact bytes without the newline, lowercase hex (HMAC-SHA256 under the
///   host key when one is set). The very first line's `prev` is 64 zeros.
/// - `<log>.head`: `<link of the newest line> <its seq>`; with a key `<its seq> <seal>`, the seal an HMAC over the
///   link and the seq, so the newest link is never shown to someone who might append a line to it.
/// - `<log>.1` … `<log>.N`: rotated segments, `.1` the newest. When `<log>` would grow past
///   [`FileSinkOptions::max_bytes`] it becomes `.1` and the others shift up; the oldest beyond
///   [`FileSinkOptions::max_rotated`] is dropped. The chain runs on across rotation: the first line of a fresh
///   `<log>` has the `prev` the head carried, so [`verify`](fn@super::verify) reads `.N` … `.1`, `<log>` as one chain.
/// - `<log>.lock`: an empty file that is never renamed; appenders hold an exclusive `flock` on it.
/// - `<log>.gaps`: receipts that could not be appended, one JSON line per lost batch (how many, the first and last
///   time, why), appended without the lock; [`verify`](super::verify) reports them as [`Missing`](super::Missing).
///
/// # Appending
///
/// Under the lock: read the head and the log's last line, rotate if due, write `seq = last seq + 1, prev = last
/// link` (for a batch, each line linking to the one before) as one write, then rewrite the head in place (one write
/// under the lock, which readers take too, so none sees half a head). **The log is the truth and the head a cache**: when the
/// head lags behind the log because an append of ours did not finish (a failed head write, a full disk, a kill
/// between the two writes), the log still holds the line the head records and every later line links on, and the
/// next append goes on from the log's last line, so no fault of ours forks the chain. A head that disagrees in any
/// other way (ahead of the log: lines cut off; another line at the same seq: the last line edited; a seal that does
/// not match) is not ours to mend: the chain goes on from the head (or restarts, for a keyed head, which shows no
/// link), where `verify` reports the damage. A new log gets its head before its first line. Without a key a
/// missing or unreadable head is rebuilt from the log too (whoever can delete it could rewrite it); with a key it is
/// not, since that would hide a cut. An unfinished line after the chain's end (a write of ours killed midway) is
/// dropped, and a write that fails midway (a full disk) is taken back, so no half line stays. The log, its head and
/// its lock are never opened through a symlink.
///
/// The lock is polled, not waited on blindly: an append gives up after [`FileSinkOptions::lock_timeout`] (a
/// stopped process holding the lock must not hang every dispatch), and the failure becomes a diagnostic. Receipts
/// that are not in the log when an append fails (the lock not had in time, the directory or the log not writable,
/// a full disk) are marked in `<log>.gaps` instead, so the log reads as incomplete later rather than intact.
/// Nothing is fsynced: a receipt is as durable as the page cache, which suits an audit trail of a local agent; a
/// power cut can leave a stale head, which the next append recovers from the log.
///
/// # Threat model
///
/// The chain detects corruption and casual edits: a changed, removed, reordered or inserted line, or lines cut off
/// the end, break it. It cannot stop someone who can rewrite both the log and its head: they can recompute every
/// link. With a host key ([`FileSinkOptions::key`]) links and the head's seal are HMACs, which that person cannot
/// recompute without the key; what remains possible for them is deleting whole rotated segments from the oldest end
/// (indistinguishable from retention), replacing the files with an older copy of both, or deleting everything.
/// Keep the key out of the workspace (the host's own secret store). Adding a key to an existing log, or changing it,
/// makes earlier lines fail verification under the new key: start a fresh log when you do.
///
/// # Example
///
/// ```
/// use hook_middleware::receipts::{verify, FileSink, ReceiptSink};
/// # let receipt: hook_types::Receipt = serde_json::from_str(r#"{"time":"1970-01-01T00:00:00.000Z","hook_id":"h",
/// #   "origin":null,"source":"host","hash":"","event":"pre_tool","kind":"in_process","outcome":"emitted",
/// #   "effects":[],"exit_code":null,"output_bytes":0,"tool_name":null,"duration_ms":0,"session_id":null,"prev":null}"#).unwrap();
/// let dir = tempfile::tempdir().unwrap();
/// let sink = FileSink::new(dir.path().join("receipts/log.jsonl"));
/// sink.record(&receipt).unwrap();
/// sink.record(&receipt).unwrap();
/// let report = verify(sink.path(), None).unwrap();
/// assert_eq!(report.lines, 2);
/// assert!(report.is_intact());
/// ```
#[derive(Debug, Clone)]
pub struct FileSink {
    path: PathBuf,
    options: FileSinkOptions,
}

/// One line of the log: a receipt plus its place in the chain.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct FileLine {
    /// 1, 2, 3, … over the log's whole life.
    pub seq: u64,
    /// The receipt; its `prev` carries the previous line's link.
    #[serde(flatten)]
    pub receipt: Receipt,
}

impl FileSink {
    /// A sink writing to `path` with default options. Nothing is touched until the first receipt: a path that
    /// cannot be created fails each `record`, which the pipeline reports as a diagnostic.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileSink::with_options(path, FileSinkOptions::default())
    }

    /// A sink writing to `path` with `options`.
    pub fn with_options(path: impl Into<PathBuf>, mut options: FileSinkOptions) -> Self {
        options.max_rotated = options.max_rotated.max(1);
        FileSink { path: path.into(), options }
    }

    /// A sink at the workspace's default path ([`default_receipt_path`]), or `None` when there is no state
    /// directory (neither `$XDG_STATE_HOME` nor `$HOME` is set).
    pub fn for_workspace(workspace: &Path) -> Option<Self> {
        default_receipt_path(workspace).map(FileSink::new)
    }

    /// The live log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options in force.
    pub fn options(&self) -> &FileSinkOptions {
        &self.options
    }

    fn io_error(&self, action: &'static str, path: &Path, source: io::Error) -> SinkError {
        SinkError::Io { sink: self.name(), action, path: path.to_owned(), source }
    }

    /// Appends `receipts`; when they did not reach the log, marks them in `<log>.gaps`. A mark that cannot be
    /// written either (the directory cannot be made, the disk is full: most often the append's own cause) is a
    /// `tracing` warning; the append's error is what the dispatch reports.
    fn append_or_mark(&self, receipts: &[Receipt]) -> Result<(), SinkError> {
        let Err(failed) = self.append(receipts) else { return Ok(()) };
        if !failed.written
            && let Err(e) = gaps::mark(&self.path, receipts, &failed.error.to_string())
        {
            let gaps = gaps::gaps_path(&self.path);
            tracing::warn!(receipts = receipts.len(), "receipts lost and not marked in `{}`: {e}", gaps.display());
        }
        Err(failed.error)
    }

    /// Appends `receipts` in order under one lock, with one head read and one head update.
    fn append(&self, receipts: &[Receipt]) -> Result<(), Failed> {
        if receipts.is_empty() {
            return Ok(());
        }
        let lock = self.lock()?;
        // Everything below runs under the lock; dropping `lock` at the end of this function releases it.
        let key = self.options.key.as_ref().map(HostKey::as_bytes);
        let head_path = sidecar(&self.path, ".head");
        let head = match read_no_follow(&head_path) {
            Ok(Some(bytes)) => String::from_utf8(bytes)
                .ok()
                .and_then(|text| Head::parse(&text))
                .map_or(HeadRead::Unreadable, HeadRead::Found),
            Ok(None) => HeadRead::Missing,
            Err(_) => HeadRead::Unreadable,
        };
        let tail = self.tail().map_err(|e| self.io_error("reading the end of", &self.path, e))?;
        let (start, from_log) = self.start(&tail, &head, key);
        if tail.end.is_none() && matches!(head, HeadRead::Missing) {
            // A new chain: its head exists before its first line, so a missing head never is a fault of ours.
            self.write_head(&Head::genesis(key), &head_path)?;
        }

        let mut head = start;
        let mut lines = Vec::with_capacity(512 * receipts.len());
        for receipt in receipts {
            // A forged head at u64::MAX must not panic the host: the repeated seq shows up in `verify`.
            let seq = head.seq.saturating_add(1);
            let mut entry = FileLine { seq, receipt: receipt.clone() };
            entry.receipt.prev = Some(std::mem::take(&mut head.link));
            let start = lines.len();
            serde_json::to_writer(&mut lines, &entry)
                .map_err(|e| SinkError::Other { sink: self.name(), message: format!("serializing a receipt: {e}") })?;
            head = Start { link: link(&lines[start..], key), seq };
            lines.push(b'\n');
        }

        // An unfinished line after the chain's end is a write of ours that was cut short (killed mid-write): nothing
        // links to it, so it goes. After a line the head does not account for, it stays, on its own line.
        let keep = if from_log || tail.size == tail.complete_len { tail.complete_len } else { tail.size };
        if keep < tail.size {
            open_private(OpenOptions::new().write(true), &self.path)
                .and_then(|log| log.set_len(keep))
                .map_err(|e| self.io_error("dropping an unfinished line from", &self.path, e))?;
        }
        let size = if keep > 0 && keep + lines.len() as u64 > self.options.max_bytes {
            self.rotate()?;
            0
        } else {
            keep
        };
        let log = open_private(OpenOptions::new().read(true).write(true).create(true), &self.path)
            .map_err(|e| self.io_error("opening", &self.path, e))?;
        let mut last = [0u8; 1];
        if size > 0 && platform::read_at(&log, &mut last, size - 1).is_ok_and(|n| n == 1) && last[0] != b'\n' {
            lines.insert(0, b'\n');
        }
        // Cut only what is not ours past `size` (a writer that ignored the lock): on ext4 a `ftruncate`, even to the
        // length the file has, costs more than the `fstat` that shows it is not needed.
        let cut = log.metadata().and_then(|meta| if meta.len() == size { Ok(()) } else { log.set_len(size) });
        if let Err(e) = cut.and_then(|()| platform::write_all_at(&log, &lines, size)) {
            // A short write (a full disk) must not leave half a line behind: take back what was written.
            let _ = log.set_len(size);
            return Err(self.io_error("appending to", &self.path, e).into());
        }
        // If this fails (or the process dies here) the head is stale, and the next append recovers it from the log.
        self.write_head(&Head::new(head.link, head.seq, key), &head_path)
            .map_err(|error| Failed { error, written: true })?;
        drop(lock);
        Ok(())
    }

    /// Takes the exclusive lock on `<log>.lock`, creating the directory first when needed.
    fn lock(&self) -> Result<File, SinkError> {
        let lock_path = sidecar(&self.path, ".lock");
        let open_lock = || open_private(OpenOptions::new().read(true).write(true).create(true), &lock_path);
        // Creating the directory only when the lock cannot be opened saves a syscall on every append after the
        // first; when the directory cannot be made, its error (not the open's) says why.
        let lock = match open_lock() {
            Ok(lock) => Ok(lock),
            Err(_) => self
                .create_dir()
                .and_then(|()| open_lock().map_err(|e| self.io_error("opening the lock file", &lock_path, e))),
        }?;
        locked::flock_within(&lock, &lock_path, LockKind::Exclusive, self.options.lock_timeout)
            .map_err(|e| self.io_error("locking", &lock_path, e))?;
        Ok(lock)
    }

    /// Where the next line links: the log's last line when the head agrees with it or is only stale (true), else
    /// the head (false), so damage someone else did stays visible.
    ///
    /// The log is the truth and the head a cache. The head lags behind the log only when an append of ours did
    /// not finish (its write failed, the disk was full, the process was killed between the two writes): then the
    /// log still holds the line the head records, and every line after it links on. That is recovered silently,
    /// so no fault of ours forks the chain. Anything else — a head ahead of the log (lines cut off), one recording
    /// another line at the same seq (the last line edited), a keyed head whose seal does not match — is not ours,
    /// and the chain goes on from the head (or starts over, for a keyed head that shows no link), where `verify`
    /// reports it. Without a key a missing or unreadable head is recovered too: whoever can delete it could as
    /// well have rewritten it. With a key it is not: that is how a cut would be hidden.
    fn start(&self, tail: &Tail, head: &HeadRead, key: Option<&[u8]>) -> (Start, bool) {
        let genesis = || Start { link: GENESIS.to_owned(), seq: 0 };
        let from_head = |h: &Head| Start { link: h.link.clone().unwrap_or_else(|| GENESIS.to_owned()), seq: h.seq };
        let Some(end) = &tail.end else {
            return match head {
                HeadRead::Found(h) if !h.records(GENESIS, 0, key) => (from_head(h), false),
                _ => (genesis(), true),
            };
        };
        let recovered = || (Start { link: end.link.clone(), seq: end.seq }, true);
        match head {
            HeadRead::Found(h) if h.records(&end.link, end.seq, key) => recovered(),
            HeadRead::Found(h) if h.seq < end.seq && self.stale_but_consistent(h, key) => recovered(),
            HeadRead::Missing | HeadRead::Unreadable if key.is_none() => recovered(),
            HeadRead::Found(h) => (from_head(h), false),
            HeadRead::Missing | HeadRead::Unreadable => (genesis(), false),
        }
    }

    /// Whether the log holds the line `head` records and every line after it links on to the end: the head is a
    /// stale cache, not a sign of damage. Reads `<log>.1` and `<log>` whole; only a disagreement gets here.
    fn stale_but_consistent(&self, head: &Head, key: Option<&[u8]>) -> bool {
        let mut bytes = Vec::new();
        for path in [rotated_path(&self.path, 1), self.path.clone()] {
            if let Ok(Some(segment)) = read_no_follow(&path) {
                bytes.extend_from_slice(&segment[..segment.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)]);
            }
        }
        stale_head_is_consistent(&bytes, head, key)
    }

    /// The live log's size, where its last complete line ends, and the chain's end: the last complete line of the
    /// live log, or of `<log>.1` when the live log has none yet (just rotated).
    fn tail(&self) -> io::Result<Tail> {
        let (size, complete_len, last) = last_line(&self.path)?;
        let last = match last {
            Some(line) => Some(line),
            None => last_line(&rotated_path(&self.path, 1))?.2,
        };
        let key = self.options.key.as_ref().map(HostKey::as_bytes);
        let end = last.and_then(|line| {
            let seq = serde_json::from_slice::<LinkFields>(&line).ok()?.seq;
            Some(End { seq, link: link(&line, key) })
        });
        Ok(Tail { size, complete_len, end })
    }

    /// Writes the head in place: one `pwrite` at offset 0 under the append lock (readers take the lock too, so none
    /// sees it half written), then the file cut to the new length when it shrank. In place rather than a new file
    /// renamed over it: on ext4 a rename over an existing file forces the new file's data to disk
    /// (`auto_da_alloc`), which cost more than the rest of an append (docs/performance.md#the-process-start). A
    /// process killed between the write and the cut leaves trailing bytes the head cannot parse; the next append
    /// then recovers the head from the log, as it does for any head it cannot read. Anything but a regular file at
    /// the head's place (a symlink, a FIFO) is replaced as before: a temp file created new, then renamed.
    fn write_head(&self, head: &Head, head_path: &Path) -> Result<(), SinkError> {
        let text = head.render();
        let opened = platform::open_no_follow(OpenOptions::new().write(true).create(true), head_path);
        let file = match opened {
            Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => file,
            _ => return self.replace_head(&text, head_path),
        };
        let result = platform::write_all_at(&file, text.as_bytes(), 0).and_then(|()| {
            let len = text.len() as u64;
            match file.metadata()?.len() > len {
                true => file.set_len(len),
                false => Ok(()),
            }
        });
        result.map_err(|e| self.io_error("writing the head", head_path, e))
    }

    /// Replaces the head: a temp file created new (never through something planted at its name), then renamed.
    fn replace_head(&self, text: &str, head_path: &Path) -> Result<(), SinkError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let temp = sidecar(
            &self.path,
            &format!(".head.{}.{}.tmp", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)),
        );
        let result = open_private(OpenOptions::new().write(true).create_new(true), &temp)
            .and_then(|mut file| file.write_all(text.as_bytes()))
            .and_then(|()| fs::rename(&temp, head_path));
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result.map_err(|e| self.io_error("writing the head", head_path, e))
    }

    fn create_dir(&self) -> Result<(), SinkError> {
        match self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) => {
                platform::create_private_dir_all(dir).map_err(|e| self.io_error("creating the directory", dir, e))
            }
            None => Ok(()),
        }
    }

    /// Shifts `<log>.i` to `<log>.i+1` for i = N-1 … 1, then `<log>` to `<log>.1`. Renaming onto `.N` drops the
    /// oldest segment.
    fn rotate(&self) -> Result<(), SinkError> {
        for n in (1..=self.options.max_rotated).rev() {
            let from = if n == 1 { self.path.clone() } else { rotated_path(&self.path, n - 1) };
            let to = rotated_path(&self.path, n);
            match fs::rename(&from, &to) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.io_error("rotating", &from, e)),
            }
        }
        Ok(())
    }
}

impl ReceiptSink for FileSink {
    fn name(&self) -> String {
        format!("file:{}", self.path.display())
    }

    fn record(&self, receipt: &Receipt) -> Result<(), SinkError> {
        self.append_or_mark(std::slice::from_ref(receipt))
    }

    /// One lock, one head read and one head update for the whole batch: about the cost of a single receipt.
    /// The batch is written with one `write`, so on an error none of it is counted as recorded.
    fn record_batch(&self, receipts: &[Receipt]) -> Result<(), BatchError> {
        self.append_or_mark(receipts).map_err(|error| BatchError { failed: receipts.len(), error })
    }
}

/// Why an append failed, and whether its lines reached the log all the same (only the head update failed).
struct Failed {
    error: SinkError,
    written: bool,
}

impl From<SinkError> for Failed {
    fn from(error: SinkError) -> Failed {
        Failed { error, written: false }
    }
}

/// What the head file held when an append began.
enum HeadRead {
    Missing,
    Unreadable,
    Found(Head),
}

/// Where the next line links: the previous line's link and seq.
struct Start {
    link: String,
    seq: u64,
}

/// The chain's last line as the log has it.
struct End {
    seq: u64,
    link: String,
}

/// The end of the live log.
struct Tail {
    /// Its size.
    size: u64,
    /// Where its last complete line ends (== `size` unless an unfinished line follows).
    complete_len: u64,
    /// The chain's last line, from the live log or `<log>.1`; `None` when there is none, or it is no receipt line.
    end: Option<End>,
}

/// The two fields of a line the chain needs.
#[derive(Deserialize)]
struct LinkFields {
    seq: u64,
    prev: Option<String>,
}

/// `(size, where the last complete line ends, that line)` of the file at `path`, reading from its end only as far
/// as the last line reaches; a missing file is empty.
fn last_line(path: &Path) -> io::Result<(u64, u64, Option<Vec<u8>>)> {
    let file = match open_no_follow(OpenOptions::new().read(true), path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0, None)),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    // A receipt line is a few hundred bytes: start small (every append reads this), grow fourfold when the window
    // holds no whole line.
    let mut window = 4 * 1024u64;
    loop {
        let from = size.saturating_sub(window);
        let mut bytes = vec![0; (size - from) as usize];
        platform::read_exact_at(&file, &mut bytes, from)?;
        let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') else {
            if from == 0 {
                return Ok((size, 0, None));
            }
            window *= 4;
            continue;
        };
        let complete_len = from + last_newline as u64 + 1;
        match bytes[..last_newline].iter().rposition(|&b| b == b'\n') {
            Some(before) => return Ok((size, complete_len, Some(bytes[before + 1..last_newline].to_vec()))),
            None if from == 0 => return Ok((size, complete_len, Some(bytes[..last_newline].to_vec()))),
            None => window *= 4,
        }
    }
}

/// Whether `bytes` (complete lines, oldest first) hold the line `head` records — for seq 0, a chain that starts
/// there — with every later line linking on to the end.
fn stale_head_is_consistent(bytes: &[u8], head: &Head, key: Option<&[u8]>) -> bool {
    let lines: Vec<(&[u8], Option<LinkFields>)> = bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| (line, serde_json::from_slice::<LinkFields>(line).ok()))
        .collect();
    let (mut link_before, mut seq_before, first) = if head.seq == 0 {
        if !head.records(GENESIS, 0, key) {
            return false;
        }
        (GENESIS.to_owned(), 0, 0)
    } else {
        let Some(at) = lines.iter().position(|(line, fields)| {
            fields.as_ref().is_some_and(|f| f.seq == head.seq) && head.records(&link(line, key), head.seq, key)
        }) else {
            return false;
        };
        (link(lines[at].0, key), head.seq, at + 1)
    };
    for (line, fields) in &lines[first..] {
        let Some(fields) = fields else { return false };
        if fields.prev.as_deref() != Some(link_before.as_str()) || Some(fields.seq) != seq_before.checked_add(1) {
            return false;
        }
        link_before = link(line, key);
        seq_before = fields.seq;
    }
    true
}

/// Reads `path` whole without following a symlink at its place: `None` when it does not exist.
fn read_no_follow(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match open_no_follow(OpenOptions::new().read(true), path) {
        Ok(mut file) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens without following a symlink at the last component: the log, its head and its lock are files of the
/// engine's, and a symlink planted at their place must not redirect a write (or a read) elsewhere.
fn open_no_follow(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    platform::open_no_follow(options, path)
}

/// `<log><suffix>`: the head, lock and temp files beside the log.
pub(crate) fn sidecar(log: &Path, suffix: &str) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `<log>.<n>`: a rotated segment, `.1` the newest.
pub(crate) fn rotated_path(log: &Path, n: u32) -> PathBuf {
    sidecar(log, &format!(".{n}"))
}

/// Opens with mode 0600 when creating: receipts name tools and sessions, which are nobody else's business.
fn open_private(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    platform::open_no_follow(options, path)
}
