//! Bounded capture of one output stream, the stdin writer, and a terminal-safe text view.
//!
//! Memory stays flat whatever the child prints: at most `limit` bytes are kept per stream plus one fixed read buffer;
//! everything past the limit is still read (so the writer never blocks on a full pipe) and dropped.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
#[cfg(unix)]
use tokio::net::unix::pipe;

/// The read buffer starts small (most hooks print little) and doubles while reads fill it, up to `MAX_CHUNK`.
const FIRST_CHUNK: usize = 4 * 1024;
const MAX_CHUNK: usize = 64 * 1024;

/// The parent's end of an output pipe on Unix; on Windows Tokio's reader of a child's stdout or stderr.
#[cfg(unix)]
pub(crate) type OutputPipe = pipe::Receiver;
#[cfg(windows)]
pub(crate) type OutputPipe = tokio::process::ChildStdout;

/// One output pipe being drained into a bounded buffer.
pub(crate) struct Capture<R = OutputPipe> {
    rx: Option<R>,
    scratch: Vec<u8>,
    limit: usize,
    pub(crate) bytes: Vec<u8>,
    pub(crate) truncated: bool,
    /// A read failed other than by EOF; reading stopped.
    pub(crate) error: Option<io::Error>,
}

impl<R: AsyncRead + Unpin> Capture<R> {
    pub(crate) fn new(rx: Option<R>, limit: usize) -> Self {
        Capture { rx, scratch: Vec::new(), limit, bytes: Vec::new(), truncated: false, error: None }
    }

    /// At EOF (or failed): nothing more will arrive.
    pub(crate) fn is_closed(&self) -> bool {
        self.rx.is_none()
    }

    fn keep(&mut self, n: usize) {
        let full = n == self.scratch.len();
        let room = self.limit.saturating_sub(self.bytes.len());
        let kept = n.min(room);
        self.bytes.extend_from_slice(&self.scratch[..kept]);
        if kept < n {
            self.truncated = true;
        }
        if full && self.scratch.len() < MAX_CHUNK {
            self.scratch.resize(self.scratch.len() * 2, 0);
        }
    }

    fn close(&mut self, result: io::Result<()>) {
        self.rx = None;
        self.scratch = Vec::new();
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    /// Reads until EOF. Cancel-safe: bytes are appended only after a read returned them, so dropping this future
    /// loses nothing that was read.
    pub(crate) async fn drain(&mut self) {
        if self.scratch.is_empty() {
            self.scratch = vec![0; FIRST_CHUNK];
        }
        loop {
            let Some(rx) = self.rx.as_mut() else { return };
            let result = rx.read(&mut self.scratch).await;
            match result {
                Ok(0) => return self.close(Ok(())),
                Ok(n) => self.keep(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.close(Err(e)),
            }
        }
    }

    /// Stops reading, closing our end.
    pub(crate) fn abandon(&mut self) {
        self.close(Ok(()));
    }
}

#[cfg(unix)]
impl Capture<pipe::Receiver> {
    /// Reads what is already in the pipe without waiting, stopping at the first would-block.
    pub(crate) fn drain_available(&mut self) {
        if self.rx.is_none() {
            return;
        }
        if self.scratch.is_empty() {
            self.scratch = vec![0; FIRST_CHUNK];
        }
        loop {
            let Some(rx) = self.rx.as_ref() else { return };
            let result = rx.try_read(&mut self.scratch);
            match result {
                Ok(0) => return self.close(Ok(())),
                Ok(n) => self.keep(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) => return self.close(Err(e)),
            }
        }
    }
}

/// Writes the whole payload, then closes the pipe so the child sees EOF.
///
/// A child that exits or closes stdin without reading everything is legitimate (a hook may decide from its arguments
/// alone), so a broken pipe is `Ok`; only other failures are reported.
pub(crate) async fn write_stdin<W: AsyncWrite + Unpin>(tx: Option<W>, payload: &[u8]) -> io::Result<()> {
    let Some(mut tx) = tx else { return Ok(()) };
    match tx.write_all(payload).await {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e),
    }
}
