//! `hook trust --list` and `hook trust --revoke ID`: what the store holds for this workspace.

use anyhow::{Context as _, Result, bail};
use hook_config::{Config, TrustStore, trust_value};
use hook_types::format_rfc3339_millis;
use serde::Serialize;

use crate::context::Context;
use crate::exit;
use crate::render::{JSON_VERSION, Style, clean_line, emit, emit_json};

/// One entry of `--list`.
#[derive(Debug, Serialize)]
struct Entry {
    id: String,
    fingerprint: String,
    /// RFC 3339 UTC.
    trusted_at: String,
    /// `current` (the hook in force runs exactly this), `modified` (it runs something else now) or `gone` (no hook
    /// of that id is declared any more).
    state: &'static str,
}

fn open(config: &Config) -> Result<TrustStore> {
    let Some(path) = &config.trust_store else {
        bail!("no trust store is in use for this workspace (the config home is unknown or lies inside the workspace)")
    };
    let (store, issue) = TrustStore::open(path);
    if let Some(issue) = issue {
        bail!("{issue}");
    }
    Ok(store)
}

/// Lists what is trusted in this workspace, and whether each entry still matches what runs.
pub fn list(ctx: &Context) -> Result<u8> {
    let config = ctx.load()?;
    let store = open(&config)?;
    let entries: Vec<Entry> = store
        .entries(&config.workspace)
        .map(|(id, record)| {
            let hooks = config.hooks.iter().chain(config.shadowed.iter().map(|s| &s.attempted));
            let now: Vec<_> = hooks.filter(|h| h.decl.id == id).collect();
            let state = if now.is_empty() {
                "gone"
            } else if now.iter().any(|h| trust_value(&h.decl, h.fingerprint.as_ref()) == record.fingerprint) {
                "current"
            } else {
                "modified"
            };
            Entry {
                id: id.to_owned(),
                fingerprint: record.fingerprint.clone(),
                trusted_at: format_rfc3339_millis(record.trusted_at_ms),
                state,
            }
        })
        .collect();
    if ctx.json {
        emit_json(&serde_json::json!({
            "version": JSON_VERSION,
            "workspace": config.workspace,
            "trust_store": config.trust_store,
            "trusted": entries,
        }))?;
        return Ok(exit::SUCCESS);
    }
    if entries.is_empty() {
        emit(&format!("nothing is trusted in {}\n", config.workspace.display()))?;
        return Ok(exit::SUCCESS);
    }
    let mut text = format!("trusted in {}:\n", config.workspace.display());
    for entry in &entries {
        let style = if entry.state == "current" { Style::Green } else { Style::Yellow };
        text.push_str(&format!("  {:<9} {}\n", ctx.painter.paint(style, entry.state), clean_line(&entry.id)));
        text.push_str(&format!("            {} since {}\n", &entry.fingerprint, entry.trusted_at));
    }
    emit(&text)?;
    Ok(exit::SUCCESS)
}

/// Forgets one hook's trust in this workspace.
pub fn revoke(ctx: &Context, id: &str) -> Result<u8> {
    let config = ctx.load()?;
    let path = open(&config)?.path().to_path_buf();
    let (revoked, issue) = TrustStore::update(&path, |store| store.revoke(&config.workspace, id))
        .with_context(|| format!("could not save the trust store `{}`", path.display()))?;
    if let Some(issue) = issue {
        bail!("{issue}");
    }
    if !revoked {
        bail!(
            "hook `{id}` is not trusted in workspace `{}`; `hook trust --list` shows what is",
            config.workspace.display()
        );
    }
    if ctx.json {
        emit_json(&serde_json::json!({"version": JSON_VERSION, "revoked": id}))?;
    } else {
        emit(&format!("revoked {}: it no longer runs until trusted again\n", clean_line(id)))?;
    }
    Ok(exit::SUCCESS)
}
