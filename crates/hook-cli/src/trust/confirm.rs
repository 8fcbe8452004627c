//! The confirmation `hook trust` asks before it records trust, and `hook install` before it moves and trusts an
//! agent's hooks (docs/trust.md#what-needs-trust: "the same confirmation as `hook trust`").

use std::io::{self, BufRead, IsTerminal, Write};

use anyhow::{Context as _, Result, bail};

/// What one confirmation asks, and what it says when nothing is done.
#[derive(Debug)]
pub struct Confirmation<'a> {
    /// The question, without the ` [y/N] ` after it.
    pub question: String,
    /// The refusal when stdin is not a terminal: what is not done, and how to do it after reviewing what was shown.
    pub no_terminal: &'a str,
    /// The refusal on any answer but yes: that nothing was done.
    pub declined: &'a str,
}

/// Asks on the terminal (the question on stderr, the answer from stdin), unless `yes` (`--yes`). A stdin that is not
/// a terminal means nobody can have read what was shown, so it refuses instead of asking.
pub fn confirm(yes: bool, confirmation: Confirmation<'_>) -> Result<()> {
    if yes {
        return Ok(());
    }
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        bail!("{}", confirmation.no_terminal);
    }
    let mut err = io::stderr().lock();
    write!(err, "{} [y/N] ", confirmation.question)?;
    err.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer).context("cannot read the answer from stdin")?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES") { Ok(()) } else { bail!("{}", confirmation.declined) }
}
