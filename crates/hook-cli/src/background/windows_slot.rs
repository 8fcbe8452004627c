//! How a bridge hands a slot to its runner on Windows, where a lock cannot pass from one process to another: a
//! `LockFileEx` lock is the handle's, and goes when the process that took it exits. So each side takes its own lock,
//! on its own byte of the slot file (far past its end, where no data is, so the locks never block a read or a
//! write of the data):
//!
//! - **the claim** ([`CLAIM`]): a bridge holds it from the moment it picks the slot until its runner has
//!   acknowledged it (or it gives up on the runner). It keeps two bridges off one slot.
//! - **the life** ([`LIFE`]): a runner holds it for its whole life; the OS drops it when the runner ends, however it
//!   ends. A slot is free only when both bytes can be locked: that is what bounds the runners in number.
//!
//! The file carries the rest of the handshake, a token per hand-off (the bridge's pid, the time and a sequence
//! number) in three fields, each written by one side only:
//!
//! 1. The bridge locks the claim and the life of the first free slot, writes its token as the **offer** (clearing
//!    the acknowledgement and the go) and the agent's input after them, releases the life, and starts the runner
//!    with the slot's path and the token.
//! 2. The runner locks the life (a bounded wait), checks that the offer is its token, and writes it as the
//!    **acknowledgement**.
//! 3. The bridge, polling for at most [`HANDOVER`], reads the acknowledgement, writes the token as the **go**,
//!    releases the claim and answers the agent. The runner runs only on the go.
//!
//! A bridge that waited [`HANDOVER`] in vain (or saw its runner end first) clears the offer and says in its answer
//! that the async hooks did not run; it never writes the go, so a runner that acknowledged too late finds the claim
//! released without a go and exits without running, and one that starts later still finds the offer cleared, or
//! another call's token there. A runner's acknowledgement is the only thing that can make its bridge say "ran", and
//! the bridge's go the only thing that makes a runner run, so the two never disagree. The suggested simpler
//! handshake (the bridge waits until the life byte is held) could not tell its own runner from a late runner of an
//! earlier call that holds the life for a moment before it notices the slot is no longer its own.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result, bail};
use hook_config::platform::{self, try_lock_byte, unlock_byte};

use super::{MAX_INPUT_BYTES, MAX_RUNNERS};

/// The byte a bridge locks while it hands the slot over.
const CLAIM: u64 = 1 << 40;
/// The byte a runner locks for its whole life.
const LIFE: u64 = CLAIM + 1;
/// Where the bridge's offer (its token) is.
const OFFER: u64 = 0;
/// Where the runner's acknowledgement (the token again) is.
const ACK: u64 = 16;
/// Where the bridge's go (the token once more) is.
const GO: u64 = 32;
/// Where the agent's hook input starts; it runs to the end of the file.
const INPUT: u64 = 48;
/// How long a bridge waits for its runner's acknowledgement: the agent waits for the bridge meanwhile.
pub const HANDOVER: Duration = Duration::from_secs(2);
/// How long a runner waits for the life byte and for the go: past [`HANDOVER`], after which no go comes.
const RUNNER_WAIT: Duration = Duration::from_secs(5);

/// One hand-off's token: never all zeros (a cleared offer).
type Token = [u8; 16];

/// A slot whose claim this bridge holds; dropping it releases the claim.
struct Claimed {
    file: File,
    path: PathBuf,
}

impl Drop for Claimed {
    fn drop(&mut self) {
        // Closing the handle releases it too; Windows only promises that "in time", this at once.
        let _ = unlock_byte(&self.file, CLAIM);
    }
}

/// Hands `input` to a runner started from `runner` through a free slot under `dir`; `Err` says why the async
/// hooks will not run, for the answer.
pub fn hand_off(dir: &Path, input: &[u8], mut runner: Command) -> Result<(), String> {
    let slot = claim(dir)?;
    let token = token();
    slot.offer(&token, input).map_err(|e| format!("cannot write its input to {}: {e}", slot.path.display()))?;
    runner.arg("--slot").arg(&slot.path).arg("--token").arg(hex(&token));
    let child = crate::platform::spawn_detached(&mut runner).map_err(|e| format!("cannot start the runner: {e}"))?;
    slot.await_runner(&token, child)
}

/// The first slot whose claim and life are both free, its claim and life held.
fn claim(dir: &Path) -> Result<Claimed, String> {
    for n in 0..MAX_RUNNERS {
        let path = dir.join(format!("runner-{n}"));
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        let file = platform::open_no_follow(&mut options, &path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let locked =
            |file: &File, at| try_lock_byte(file, at).map_err(|e| format!("cannot lock {}: {e}", path.display()));
        if !locked(&file, CLAIM)? {
            continue;
        }
        let free = locked(&file, LIFE)?;
        let slot = Claimed { file, path };
        if free {
            return Ok(slot);
        }
    }
    Err(format!(
        "{MAX_RUNNERS} runners of earlier calls are still running their async hooks, the most that run at once; \
         these were skipped rather than piling up"
    ))
}

impl Claimed {
    /// Writes the offer and the input, the acknowledgement and the go cleared, then lets the runner take the life.
    fn offer(&self, token: &Token, input: &[u8]) -> std::io::Result<()> {
        self.file.set_len(0)?;
        platform::write_all_at(&self.file, token, OFFER)?;
        platform::write_all_at(&self.file, &[0; 32], ACK)?;
        platform::write_all_at(&self.file, input, INPUT)?;
        unlock_byte(&self.file, LIFE)
    }

    /// Waits up to [`HANDOVER`] for the runner's acknowledgement, then gives the go; else withdraws the offer.
    fn await_runner(self, token: &Token, mut child: Child) -> Result<(), String> {
        let deadline = Instant::now() + HANDOVER;
        let mut pause = Duration::from_millis(1);
        loop {
            if read_token(&self.file, ACK).is_ok_and(|ack| ack == *token) {
                return platform::write_all_at(&self.file, token, GO)
                    .map_err(|e| format!("cannot tell the runner to go in {}: {e}", self.path.display()));
            }
            let why = match child.try_wait() {
                Ok(Some(status)) => Some(format!("the runner ended ({status}) before it took its slot")),
                _ if Instant::now() >= deadline => {
                    Some(format!("the runner did not take its slot within {} ms", HANDOVER.as_millis()))
                }
                _ => None,
            };
            if let Some(why) = why {
                // A runner that starts later finds no offer and exits without running.
                let _ = platform::write_all_at(&self.file, &[0; 16], OFFER);
                return Err(why);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// The runner's side: takes the slot at `path` for the hand-off `token` (in hex), waits for the bridge's go and
/// returns the slot (its life held until it is dropped) and the agent's input. `Err` when this runner must not
/// run: the slot is not offered to it, or its bridge gave up on it.
pub fn take(path: &Path, token: &str) -> Result<(File, Vec<u8>)> {
    let token = unhex(token).with_context(|| format!("--token {token:?} is not 32 hexadecimal digits"))?;
    let file = platform::open_no_follow(OpenOptions::new().read(true).write(true), path)
        .with_context(|| format!("cannot open the slot {}", path.display()))?;
    if !poll(RUNNER_WAIT, || try_lock_byte(&file, LIFE))? {
        bail!("the slot {} stayed held by another runner for {} ms", path.display(), RUNNER_WAIT.as_millis());
    }
    if read_token(&file, OFFER)? != token {
        bail!(
            "the slot {} is no longer offered to this runner (its bridge gave up waiting for it, or a later call took \
             the slot): its hooks do not run",
            path.display()
        );
    }
    platform::write_all_at(&file, &token, ACK)?;
    let go = || read_token(&file, GO).map(|go| go == token);
    let bridge_gone = || -> std::io::Result<bool> {
        let free = try_lock_byte(&file, CLAIM)?;
        if free {
            unlock_byte(&file, CLAIM)?;
        }
        Ok(free)
    };
    // The bridge writes the go before it releases the claim: a claim found free is read after the go.
    let decided = poll(RUNNER_WAIT, || Ok(go()? || bridge_gone()?))?;
    if !decided || !go()? {
        bail!("the bridge gave up on this runner before it took the slot {}: its hooks do not run", path.display());
    }
    let len = file.metadata()?.len().saturating_sub(INPUT).min(MAX_INPUT_BYTES);
    let mut input = vec![0; usize::try_from(len)?];
    platform::read_exact_at(&file, &mut input, INPUT).context("cannot read the hook input from the slot")?;
    Ok((file, input))
}

/// Polls `ready` until it says yes or `bound` has passed; the pause grows from 1 ms to 20 ms.
fn poll(bound: Duration, mut ready: impl FnMut() -> std::io::Result<bool>) -> std::io::Result<bool> {
    let deadline = Instant::now() + bound;
    let mut pause = Duration::from_millis(1);
    loop {
        if ready()? {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The token at `offset`.
fn read_token(file: &File, offset: u64) -> std::io::Result<Token> {
    let mut token = [0; 16];
    platform::read_exact_at(file, &mut token, offset)?;
    Ok(token)
}

/// A token no other hand-off on this machine has: this process's id, the time in ns, and a sequence number.
fn token() -> Token {
    static SEQUENCE: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut token = [0; 16];
    token[..4].copy_from_slice(&std::process::id().to_le_bytes());
    token[4..12].copy_from_slice(&nanos.to_le_bytes());
    token[12..].copy_from_slice(&SEQUENCE.fetch_add(1, Ordering::Relaxed).wrapping_add(1).to_le_bytes());
    token
}

fn hex(token: &Token) -> String {
    token.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Token> {
    let mut token = [0; 16];
    if text.len() != 32 || !text.is_ascii() {
        return None;
    }
    for (i, byte) in token.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    (token != [0; 16]).then_some(token)
}
