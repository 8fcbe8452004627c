//! `hook trust [--all | ID…] [--yes] | --list | --revoke ID` (docs/trust.md, docs/trust.md#what-needs-trust).
//!
//! Trusting shows every selected hook — origin, source, the full command, the files it names with their digests,
//! the fingerprint — then asks. It records exactly what it showed: after the confirmation the workspace is loaded
//! again and each hook re-fingerprinted, and a hook whose declaration or files changed in between is not recorded
//! (and the user is told). Without `--yes`, a stdin that is not a terminal means nobody can have read what was
//! shown, so it refuses.

mod confirm;
mod manage;
mod show;

use anyhow::{Context as _, Result, bail};
use hook_config::{Config, LoadedHook, TrustStatus, TrustStore, trust_value};
use hook_types::did_you_mean;
use serde::Serialize;

use crate::cli::TrustArgs;
use crate::context::Context;
use crate::exit;
use crate::render::{JSON_VERSION, Style, emit, emit_json};

pub use confirm::{Confirmation, confirm};
pub use show::Shown;

/// Runs `hook trust`.
pub fn run(ctx: &Context, args: &TrustArgs) -> Result<u8> {
    if args.list {
        return manage::list(ctx);
    }
    if let Some(id) = &args.revoke {
        return manage::revoke(ctx, id);
    }
    trust(ctx, args)
}

/// The `--json` form of a trust run.
#[derive(Debug, Serialize)]
struct TrustJson<'a> {
    version: u32,
    workspace: &'a std::path::Path,
    /// The hooks shown (the ones selected that need trust).
    shown: &'a [Shown],
    /// Ids recorded in the store.
    trusted: Vec<&'a str>,
    /// Ids not recorded because what they run changed between showing and confirming.
    changed: Vec<&'a str>,
}

/// Every hook that needs trust to run: untrusted or modified, in force or blocked from displacing a trusted hook.
fn candidates(config: &Config) -> Vec<&LoadedHook> {
    let needs = |h: &&LoadedHook| matches!(h.trust, TrustStatus::Untrusted | TrustStatus::Modified);
    config.hooks.iter().filter(needs).chain(config.shadowed.iter().map(|s| &s.attempted).filter(needs)).collect()
}

/// Trusts the selected hooks, recording exactly what it showed.
///
/// # Order
///
/// 1. the workspace is loaded, and the store trust is recorded in found;
/// 2. the hooks are selected: every one that needs trust, the ones named, or none (what is pending is then listed);
/// 3. they are shown, and the user confirms (or passed `--yes`);
/// 4. the workspace is loaded again, and only the hooks unchanged since they were shown are kept;
/// 5. those are recorded in the store, under its lock;
/// 6. what was trusted and what changed is reported.
fn trust(ctx: &Context, args: &TrustArgs) -> Result<u8> {
    let config = ctx.load()?;
    let store_path = store_path(ctx, &config)?;
    let pending = candidates(&config);
    let selected: Vec<&LoadedHook> = if args.all {
        pending
    } else if args.ids.is_empty() {
        return nothing_selected(ctx, &pending, &config.shadowed);
    } else {
        select(&config, &pending, &args.ids)?
    };
    let shown: Vec<Shown> = selected.iter().map(|h| Shown::of(h, &config.shadowed)).collect();
    if shown.is_empty() {
        report(ctx, &config, &shown, &[], &[])?;
        return Ok(exit::SUCCESS);
    }
    show_and_confirm(ctx, args, &config, &shown)?;
    let (trusted, changed) = unchanged_since_shown(ctx, &shown)?;
    record(&store_path, &config, &trusted)?;
    let trusted: Vec<&str> = trusted.iter().map(|item| item.id.as_str()).collect();
    report(ctx, &config, &shown, &trusted, &changed)?;
    Ok(if changed.is_empty() { exit::SUCCESS } else { exit::ERROR })
}

/// The trust store to record in; an error where there is none to trust (the config home lies inside the workspace,
/// or none is known).
fn store_path(ctx: &Context, config: &Config) -> Result<std::path::PathBuf> {
    match &config.trust_store {
        Some(path) => Ok(path.clone()),
        None if !config.user_trusted => bail!(
            "cannot record trust: the config home `{}` lies inside the workspace, and a repository never supplies \
             its own trust; pass --config-home DIR outside it",
            ctx.layout.config_home().display()
        ),
        None => {
            bail!("cannot record trust: no config home is known (no $XDG_CONFIG_HOME or $HOME); pass --config-home DIR")
        }
    }
}

/// Shows each hook to be trusted (not with `--json`) and asks the user to confirm.
fn show_and_confirm(ctx: &Context, args: &TrustArgs, config: &Config, shown: &[Shown]) -> Result<()> {
    if !ctx.json {
        let mut text = String::new();
        for item in shown {
            text.push_str(&item.render(&config.workspace, &ctx.painter));
            text.push('\n');
        }
        emit(&text)?;
    }
    confirm(
        args.yes,
        Confirmation {
            question: format!("Trust {} hook(s) shown above in {}?", shown.len(), config.workspace.display()),
            no_terminal: "not trusting without confirmation: stdin is not a terminal; review what is shown above, \
                          then re-run with --yes to trust exactly that",
            declined: "not confirmed: nothing was trusted",
        },
    )
}

/// Record exactly what was shown: loads again, and splits the shown hooks into those whose trust value is unchanged
/// and the ids of those that changed.
fn unchanged_since_shown<'s>(ctx: &Context, shown: &'s [Shown]) -> Result<(Vec<&'s Shown>, Vec<&'s str>)> {
    let now = ctx.load()?;
    let current = |item: &Shown| {
        now.hooks
            .iter()
            .chain(now.shadowed.iter().map(|s| &s.attempted))
            .find(|h| h.decl.id == item.id && h.decl.source == item.source)
            .map(|h| trust_value(&h.decl, h.fingerprint.as_ref()).to_owned())
    };
    let (mut trusted, mut changed) = (Vec::new(), Vec::new());
    for item in shown {
        if current(item).as_deref() == Some(item.fingerprint.as_str()) {
            trusted.push(item);
        } else {
            changed.push(item.id.as_str());
        }
    }
    Ok((trusted, changed))
}

/// Records `trusted` in the store at `store_path`. Read, change and write happen under the store's lock: a
/// concurrent `hook trust` cannot lose these entries.
fn record(store_path: &std::path::Path, config: &Config, trusted: &[&Shown]) -> Result<()> {
    if trusted.is_empty() {
        return Ok(());
    }
    let ((), issue) = TrustStore::update(store_path, |store| {
        for item in trusted {
            store.trust(&config.workspace, &item.id, &item.fingerprint);
        }
    })
    .with_context(|| format!("nothing was trusted: the store `{}` could not be saved", store_path.display()))?;
    if let Some(issue) = issue {
        eprintln!("hook: warning: {}", crate::exit::one_line(&issue.to_string()));
    }
    Ok(())
}

/// Says what was trusted and what was not because it changed after it was shown; with nothing shown, that there was
/// nothing to trust.
fn report(ctx: &Context, config: &Config, shown: &[Shown], trusted: &[&str], changed: &[&str]) -> Result<()> {
    if ctx.json {
        return emit_json(&TrustJson {
            version: JSON_VERSION,
            workspace: &config.workspace,
            shown,
            trusted: trusted.to_vec(),
            changed: changed.to_vec(),
        });
    }
    if shown.is_empty() {
        return emit("nothing to trust: every selected hook is already trusted or needs no trust\n");
    }
    let mut text = String::new();
    for id in trusted {
        text.push_str(&format!("{} {id}\n", ctx.painter.paint(Style::Green, "trusted")));
    }
    for id in changed {
        text.push_str(&format!(
            "{} {id}: it changed after it was shown (its file or declaration); nothing recorded for it, run \
             `hook trust {id}` to review the new version\n",
            ctx.painter.paint(Style::Red, "NOT trusted")
        ));
    }
    emit(&text)
}

/// The hooks named on the command line that need trust; an id that is not a hook of the workspace is an error.
fn select<'a>(config: &'a Config, pending: &[&'a LoadedHook], ids: &[String]) -> Result<Vec<&'a LoadedHook>> {
    let mut selected: Vec<&LoadedHook> = Vec::new();
    for id in ids {
        let matching: Vec<&LoadedHook> = pending.iter().copied().filter(|h| h.decl.id == *id).collect();
        if !matching.is_empty() {
            for hook in matching {
                if !selected.iter().any(|s| std::ptr::eq(*s, hook)) {
                    selected.push(hook);
                }
            }
        } else if let Some(hook) = config.get(id) {
            let why = match hook.trust {
                TrustStatus::Managed => "it is managed policy",
                _ => "it is already trusted or needs no trust",
            };
            eprintln!("hook: note: `{}` is not shown: {why}", crate::render::safe(id));
        } else {
            let all = config.hooks.iter().map(|h| h.decl.id.as_str());
            let hint = did_you_mean(id, all).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
            bail!("no hook `{id}` in workspace `{}`{hint}; `hook inspect` lists them", config.workspace.display());
        }
    }
    Ok(selected)
}

/// No `--all` and no id: list what needs trust and say how to trust it.
fn nothing_selected(ctx: &Context, pending: &[&LoadedHook], shadowed: &[hook_config::ShadowAttempt]) -> Result<u8> {
    if ctx.json {
        let shown: Vec<Shown> = pending.iter().map(|h| Shown::of(h, shadowed)).collect();
        emit_json(&serde_json::json!({"version": JSON_VERSION, "needs_trust": shown}))?;
        return Ok(exit::SUCCESS);
    }
    if pending.is_empty() {
        emit("every hook of this workspace is trusted or needs no trust\n")?;
        return Ok(exit::SUCCESS);
    }
    let mut text = format!("{} hook(s) need trust to run:\n", pending.len());
    for hook in pending {
        let word = if hook.trust == TrustStatus::Modified { "modified " } else { "untrusted" };
        let displaces = Shown::of(hook, shadowed).displaces.map(|d| {
            format!(
                " (trusting it displaces the {} hook of the same id in {})",
                d.origin,
                crate::context::display_path(&d.source)
            )
        });
        text.push_str(&format!(
            "  {word}  {}{}\n",
            crate::render::clean_line(&hook.decl.id),
            displaces.unwrap_or_default()
        ));
    }
    text.push_str("review and trust them with `hook trust --all` or `hook trust ID…`\n");
    emit(&text)?;
    Ok(exit::SUCCESS)
}
