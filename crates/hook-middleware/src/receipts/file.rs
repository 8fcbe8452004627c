//! The JSON-lines receipt log: a hash chain with its head kept beside it, size rotation, a lock around appends.
//!
//! The layout, the locking and the threat model are documented on [`FileSink`].

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hook_types::Receipt;
use rustix::fs::{FlockOperation, flock};
use serde::{Deserialize, Serialize};

use super::chain::{Head, HostKey, link};
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
    /// How long an append waits for another process's lock before it fails (default 2 s).
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
/// - `<log>.head`: `<link of the newest line> <its seq>`, plus a seal with a key (HMAC over both).
/// - `<log>.1` … `<log>.N`: rotated segments, `.1` the newest. When `<log>` would grow past
///   [`FileSinkOptions::max_bytes`] it becomes `.1` and the others shift up; the oldest beyond
///   [`FileSinkOptions::max_rotated`] is dropped. The chain runs on across rotation: the first line of a fresh
///   `<log>` has the `prev` the head carried, so [`verify`](super::verify) reads `.N` … `.1`, `<log>` as one chain.
/// - `<log>.lock`: an empty file that is never renamed; appenders hold an exclusive `flock` on it.
///
/// # Appending
///
/// Under the lock: read the head, rotate if due, write `seq = head.seq + 1, prev = head.link` (for a batch, each
/// line linking to the one before) as one `write` in append mode, then replace the head (temp file + rename, so a reader never sees half a head). Taking `prev` from
/// the head, not from the last line, is deliberate: if someone cuts lines off the end, the next append still points
/// at the line that was cut, so the damage stays visible instead of being papered over. A missing or unreadable head
/// restarts the chain at 64 zeros, which `verify` reports where it happens. If a crashed writer left a line without
/// its newline, the next append ends it first, so the damage stays on its own line.
///
/// The lock is polled, not waited on blindly: an append gives up after [`FileSinkOptions::lock_timeout`] (a
/// stopped process holding the lock must not hang every dispatch), and the failure becomes a diagnostic.
/// Nothing is fsynced: a receipt is as durable as the page cache, which suits an audit trail of a local agent; a
/// power cut can leave a stale head, which `verify` reports as a mismatch at the end.
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

    /// Appends `receipts` in order under one lock, with one head read and one head update.
    fn append(&self, receipts: &[Receipt]) -> Result<(), SinkError> {
        if receipts.is_empty() {
            return Ok(());
        }
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
        lock_exclusive(&lock, self.options.lock_timeout).map_err(|e| self.io_error("locking", &lock_path, e))?;
        // Everything below runs under the lock; closing `lock` at the end of this function releases it.

        let head_path = sidecar(&self.path, ".head");
        let mut head = match fs::read_to_string(&head_path) {
            Ok(text) => Head::parse(&text).unwrap_or_else(Head::genesis),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Head::genesis(),
            Err(e) => return Err(self.io_error("reading the head", &head_path, e)),
        };
        let key = self.options.key.as_ref().map(HostKey::as_bytes);
        let mut lines = Vec::with_capacity(512 * receipts.len());
        for receipt in receipts {
            // A forged head at u64::MAX must not panic the host: the repeated seq shows up in `verify`.
            let seq = head.seq.saturating_add(1);
            let mut entry = FileLine { seq, receipt: receipt.clone() };
            entry.receipt.prev = Some(std::mem::take(&mut head.link));
            let start = lines.len();
            serde_json::to_writer(&mut lines, &entry)
                .map_err(|e| SinkError::Other { sink: self.name(), message: format!("serializing a receipt: {e}") })?;
            head = Head { link: link(&lines[start..], key), seq, seal: None };
            lines.push(b'\n');
        }

        let size = match fs::metadata(&self.path) {
            Ok(meta) => meta.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
            Err(e) => return Err(self.io_error("reading the size of", &self.path, e)),
        };
        let size = if size > 0 && size + lines.len() as u64 > self.options.max_bytes {
            self.rotate()?;
            0
        } else {
            size
        };
        let log = open_private(OpenOptions::new().read(true).append(true).create(true), &self.path)
            .map_err(|e| self.io_error("opening", &self.path, e))?;
        let mut last = [0u8; 1];
        if size > 0 && log.read_at(&mut last, size - 1).is_ok_and(|n| n == 1) && last[0] != b'\n' {
            lines.insert(0, b'\n');
        }
        (&log).write_all(&lines).map_err(|e| self.io_error("appending to", &self.path, e))?;

        let new_head = Head::new(head.link, head.seq, key).render();
        let temp = sidecar(&self.path, ".head.tmp");
        open_private(OpenOptions::new().write(true).create(true).truncate(true), &temp)
            .and_then(|mut file| file.write_all(new_head.as_bytes()))
            .and_then(|()| fs::rename(&temp, &head_path))
            .map_err(|e| self.io_error("writing the head", &head_path, e))?;
        drop(lock);
        Ok(())
    }

    fn create_dir(&self) -> Result<(), SinkError> {
        match self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) => DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| self.io_error("creating the directory", dir, e)),
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
        self.append(std::slice::from_ref(receipt))
    }

    /// One lock, one head read and one head update for the whole batch: about the cost of a single receipt.
    /// The batch is written with one `write`, so on an error none of it is counted as recorded.
    fn record_batch(&self, receipts: &[Receipt]) -> Result<(), BatchError> {
        self.append(receipts).map_err(|error| BatchError { failed: receipts.len(), error })
    }
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
    options.mode(0o600).open(path)
}

/// Takes an exclusive `flock` on `file`, polling until `timeout`: a plain blocking `flock` would hang the dispatch
/// behind a stopped process. The pause grows from 20 µs to 1 ms, short next to the ~1 ms a dispatch costs anyway.
fn lock_exclusive(file: &File, timeout: Duration) -> io::Result<()> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(20);
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => {}
            Err(e) => return Err(e.into()),
        }
        if Instant::now() >= deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("another process held the lock for more than {} ms", timeout.as_millis()),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

/// Takes a shared `flock` for a reader ([`verify`](super::verify)), waiting as long as it takes: readers are
/// operators' commands, not dispatches.
pub(crate) fn lock_shared(file: &File) -> io::Result<()> {
    loop {
        match flock(file, FlockOperation::LockShared) {
            Err(e) if e == rustix::io::Errno::INTR => continue,
            other => return other.map_err(Into::into),
        }
    }
}
