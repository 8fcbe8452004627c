//! `hook receipts [tail [-n N] | verify]`: the workspace's receipt log (docs/receipts.md), at the same default path `hook
//! run` and hosts write to: `$XDG_STATE_HOME/hooks/receipts/<workspace id>.jsonl`.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use hook_middleware::receipts::{VerifyError, default_receipt_path, tail, verify};
use hook_types::Receipt;

use crate::cli::{ReceiptsAction, ReceiptsArgs};
use crate::context::Context;
use crate::exit;
use crate::render::{JSON_VERSION, Style, clean_line, duration, emit, emit_json};

/// Runs `hook receipts`.
pub fn run(ctx: &Context, args: &ReceiptsArgs) -> Result<u8> {
    let workspace = hook_config::canonicalize(&ctx.layout.workspace)
        .with_context(|| format!("workspace `{}` cannot be resolved", ctx.layout.workspace.display()))?;
    let Some(log) = default_receipt_path(&workspace) else {
        bail!("no receipt log is known: neither $XDG_STATE_HOME nor $HOME is set");
    };
    match args.action.as_ref().unwrap_or(&ReceiptsAction::Tail { n: 20 }) {
        ReceiptsAction::Tail { n } => show_tail(ctx, &log, *n),
        ReceiptsAction::Verify => show_verify(ctx, &log),
    }
}

fn show_tail(ctx: &Context, log: &Path, n: usize) -> Result<u8> {
    let receipts: Vec<Receipt> = match tail(log, n) {
        Ok(receipts) => receipts,
        Err(VerifyError::NotFound { .. }) => Vec::new(),
        Err(err) => return Err(err).context("cannot read the receipt log"),
    };
    if ctx.json {
        emit_json(&serde_json::json!({"version": JSON_VERSION, "log": log, "receipts": receipts}))?;
        return Ok(exit::SUCCESS);
    }
    if receipts.is_empty() {
        emit(&format!("no receipts yet in {}\n", log.display()))?;
        return Ok(exit::SUCCESS);
    }
    let mut out = String::new();
    for receipt in &receipts {
        let outcome = serde_json::to_value(receipt.outcome).ok().and_then(|v| v.as_str().map(str::to_owned));
        let outcome = outcome.unwrap_or_default();
        let style = match outcome.as_str() {
            "blocked" | "command_failed" | "command_timeout" => Style::Red,
            "untrusted" | "modified" | "skipped" | "cancelled" => Style::Yellow,
            _ => Style::Green,
        };
        let mut what = receipt.event.to_string();
        if let Some(tool) = &receipt.tool_name {
            what.push_str(&format!(" {}", clean_line(tool)));
        }
        out.push_str(&format!(
            "{} {} {what} {}\n",
            receipt.time,
            ctx.painter.paint(style, &format!("{outcome:<15}")),
            clean_line(&receipt.hook_id)
        ));
        let mut facts =
            vec![receipt.origin.map_or("host".to_owned(), |o| o.to_string()), receipt.kind.as_str().to_owned()];
        if let Some(code) = receipt.exit_code {
            facts.push(format!("exit {code}"));
        }
        facts.push(duration(receipt.duration_ms));
        if receipt.background {
            facts.push("in the background".to_owned());
        }
        if !receipt.effects.is_empty() {
            facts.push(clean_line(&receipt.effects.join(",")));
        }
        out.push_str(&ctx.painter.paint(Style::Dim, &format!("    {}", facts.join(" · "))));
        out.push('\n');
        if let Some(reason) = &receipt.reason {
            // The rule that decided is the hook itself: its id.
            out.push_str(&format!("    why: {} (rule `{}`)\n", clean_line(reason), clean_line(&receipt.hook_id)));
        }
        if let Some(dropped) = &receipt.dropped {
            out.push_str(&format!("    allow dropped: {}\n", clean_line(dropped)));
        }
    }
    emit(&out)?;
    Ok(exit::SUCCESS)
}

/// `hook receipts verify`: exit 0 only for an intact log, one whose chain holds and from which no receipt is known
/// to be missing; a broken chain or receipts marked missing (`<log>.gaps`) exit 1, each said on a line of its own.
fn show_verify(ctx: &Context, log: &Path) -> Result<u8> {
    let report = match verify(log, None) {
        Ok(report) => report,
        Err(VerifyError::NotFound { .. }) => bail!("no receipt log at `{}`: nothing to verify yet", log.display()),
        Err(err @ VerifyError::Locked { .. }) => bail!("{err}"),
        Err(err) => return Err(err).context("cannot verify the receipt log"),
    };
    let code = if report.is_intact() { exit::SUCCESS } else { exit::ERROR };
    if ctx.json {
        emit_json(&serde_json::json!({
            "version": JSON_VERSION,
            "log": log,
            "intact": report.is_intact(),
            "chain_intact": report.chain_intact(),
            "missing": report.missing,
            "report": report,
        }))?;
        return Ok(code);
    }
    let segments: Vec<PathBuf> = report.segments.clone();
    let summary = format!(
        "{} line{} in {} file{}{}",
        report.lines,
        if report.lines == 1 { "" } else { "s" },
        segments.len(),
        if segments.len() == 1 { "" } else { "s" },
        match report.first_seq {
            Some(seq) if seq > 1 => format!(", from seq {seq} (older segments were rotated away)"),
            _ => String::new(),
        }
    );
    let mut text = match (&report.broken, &report.missing) {
        (None, None) => format!("{}: {summary}, {}\n", ctx.painter.paint(Style::Green, "intact"), log.display()),
        (None, Some(_)) => format!("the chain holds what was written: {summary}, {}\n", log.display()),
        (Some(broken), _) => format!(
            "{}\n{}: the chain breaks at line {} of {} ({summary})\n",
            clean_line(&broken.to_string()),
            ctx.painter.paint(Style::Red, "BROKEN"),
            broken.line,
            broken.path.display()
        ),
    };
    if let Some(missing) = &report.missing {
        text.push_str(&format!(
            "{}: {}\n",
            ctx.painter.paint(Style::Red, "INCOMPLETE"),
            clean_line(&missing.to_string())
        ));
    }
    emit(&text)?;
    Ok(code)
}
