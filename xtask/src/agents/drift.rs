//! `cargo xtask agents --latest`: the suite against the releases the npm registry serves at run time, and the drift
//! of each agent from its entry in the agent table.
//!
//! Each package of [`npm::PINNED`] is resolved with `npm view <package> version` and installed under
//! `target/agents/npm-latest` (the pinned install is left alone). The scenarios then run on those releases, and each
//! agent's bundled program is scanned ([`scan`]) in both releases, the pinned one and the latest. The report names,
//! per agent:
//!
//! - the version, pinned and served;
//! - event names the latest release has that the table lacks, and those new since the pinned release;
//! - answer keys, handler keys, handler types and decision words the latest release has beyond the table's
//!   [`Vocabulary`](hook_types::Vocabulary) (for the agents whose entry keeps one);
//! - serde wire shapes (Rust binaries) whose field count moved since the pinned release;
//! - a release held back from the pin because it cannot run offline here ([`HELD_BACK`]), and why.
//!
//! Any of these the table does not document — a name neither in the table nor in [`Agent::scan_noise`], a key beyond the
//! vocabulary, a moved shape — is an undocumented difference, and the command fails on it, as it fails on a failed
//! scenario. The remedy is the same each time: read the release (its changelog, its bundled schema), put what it
//! added into the agent table and `docs/agents.md` (or, for a word the scan mistakes for one of the agent's, into
//! [`Agent::scan_noise`] with why), and bump the pin.

mod scan;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::agent::Agent;
use super::npm::{self, Installed, PINNED, bundle, packages};
use scan::Found;

/// Releases newer than the pin that cannot run offline here: (package, version, why). The pin stays at the newest
/// release that does, and the drift report names each of these. A release whose platform package for this machine
/// the registry lacks is held back without being listed here ([`unpublished_platform_packages`]).
pub const HELD_BACK: &[(&str, &str, &str)] = &[];

/// One package of [`PINNED`] as the registry serves it now, and the release the suite runs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// The npm package.
    pub package: &'static str,
    /// Its pinned version.
    pub pinned: &'static str,
    /// The version the registry serves (`npm view <package> version`).
    pub served: String,
    /// Why the suite runs the pin instead of `served`, when it does.
    pub held_back: Option<String>,
}

impl Served {
    /// The version the suite installs and runs: the served one, or the pin when that is held back.
    pub fn runs(&self) -> &str {
        match self.held_back {
            Some(_) => self.pinned,
            None => &self.served,
        }
    }
}

/// What the registry serves now of every package of [`PINNED`], each with whether it can be installed here.
pub fn latest_versions() -> Result<Vec<Served>> {
    PINNED
        .iter()
        .map(|(package, pinned)| {
            let served = npm_view(package, "version")?;
            if served.is_empty() {
                bail!("npm view {package} version: the registry has no such package");
            }
            let listed =
                HELD_BACK.iter().find(|(p, v, _)| p == package && *v == served).map(|(_, _, why)| why.to_string());
            let held_back = match listed {
                Some(why) => Some(why),
                None if served == *pinned => None,
                None => {
                    let missing = unpublished_platform_packages(package, &served)?;
                    (!missing.is_empty()).then(|| {
                        format!("the registry lacks its platform package for this machine ({})", missing.join(", "))
                    })
                }
            };
            Ok(Served { package, pinned, served, held_back })
        })
        .collect()
}

/// `npm view <spec> <field>`, trimmed; empty when the registry has no such version or field.
fn npm_view(spec: &str, field: &str) -> Result<String> {
    let out = Command::new("npm")
        .args(["view", spec, field, "--json", "--loglevel=error"])
        .output()
        .context("cannot run npm (install Node.js and npm)")?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // npm's "no such version" (E404 for a package, ETARGET or an empty answer for a version) is an answer here.
        if err.contains("E404") || err.contains("ETARGET") {
            return Ok(String::new());
        }
        bail!("npm view {spec} {field} failed: {}", err.trim());
    }
    Ok(serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or(text))
}

/// The optional dependencies of `package@version` for this machine (their names end in `-linux-x64`, as the
/// platform packages of every agent here do) that the registry does not have at the version it names: a wrapper
/// published without its platform packages (Kilo Code CLI 7.8.1), which npm cannot install.
fn unpublished_platform_packages(package: &str, version: &str) -> Result<Vec<String>> {
    let listed = npm_view(&format!("{package}@{version}"), "optionalDependencies")?;
    let Ok(serde_json::Value::Object(deps)) = serde_json::from_str::<serde_json::Value>(&listed) else {
        return Ok(Vec::new());
    };
    let mut missing = Vec::new();
    for (name, wanted) in deps.iter().filter(|(name, _)| name.ends_with("-linux-x64")) {
        // A version, or an alias of another package's (Codex: `npm:@openai/codex@0.171.0-linux-x64`).
        let spec = match wanted.as_str().unwrap_or(version) {
            alias if alias.starts_with("npm:") => alias["npm:".len()..].to_owned(),
            wanted => format!("{name}@{wanted}"),
        };
        if npm_view(&spec, "version")?.is_empty() {
            missing.push(spec);
        }
    }
    Ok(missing)
}

/// Scans the bundle of `agent` in `installed` against the table's event names.
fn scan_release(agent: &str, installed: &Installed, known: &BTreeSet<&str>) -> Result<Found> {
    let mut found = Found::default();
    for file in bundle(agent, installed) {
        let bytes = std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
        scan::scan(&bytes, known, &mut found);
    }
    Ok(found)
}

/// One agent's drift, as printed.
#[derive(Debug, Default)]
pub struct Drift {
    /// Report lines, each one fact.
    pub lines: Vec<String>,
    /// How many of them are undocumented differences.
    pub undocumented: usize,
}

impl Drift {
    fn note(&mut self, line: String) {
        self.lines.push(line);
    }

    fn undocumented(&mut self, what: &str, words: &[String]) {
        if !words.is_empty() {
            self.undocumented += words.len();
            self.lines.push(format!("UNDOCUMENTED {what}: {}", words.join(", ")));
        }
    }
}

/// The drift of `agent` (the suite's name) between its table entry, its pinned release (in `pinned`) and the latest
/// (in `latest`, at `versions`).
pub fn drift(suite: &dyn Agent, pinned: &Installed, latest: &Installed, versions: &[Served]) -> Result<Drift> {
    let agent = suite.name();
    let table = hook_types::Agent::parse(agent).with_context(|| format!("no agent `{agent}` in the agent table"))?;
    let mut out = Drift::default();
    versions_line(agent, versions, &mut out);
    let known: BTreeSet<&str> = table.events.iter().flat_map(|e| [Some(e.name), e.wire_name]).flatten().collect();
    let new = scan_release(agent, latest, &known)?;
    let old = match bundle(agent, pinned) == bundle(agent, latest) {
        true => new.clone(),
        false => scan_release(agent, pinned, &known)?,
    };
    let not_events = noise(suite, "events");
    let lacking: Vec<String> = new
        .events
        .iter()
        .filter(|e| !known.contains(e.as_str()) && !not_events.contains(e.as_str()))
        .cloned()
        .collect();
    out.undocumented("event names the table lacks", &lacking);
    let since: Vec<String> = new.events.difference(&old.events).cloned().collect();
    if !since.is_empty() {
        out.note(format!("events new since the pinned release: {}", since.join(", ")));
    }
    let unseen: Vec<&str> = known.iter().copied().filter(|k| !new.events.contains(*k)).collect();
    if !unseen.is_empty() && !new.events.is_empty() {
        out.note(format!("table events the scan did not see in the release: {}", unseen.join(", ")));
    }
    match new.events.is_empty() {
        true => out.note(format!(
            "events not checked: the scan finds no list of this agent's event names in its program ({})",
            bundle(agent, latest).first().map_or_else(String::new, |p| p.display().to_string())
        )),
        false => out.note(format!("{} event names scanned, {} in the table", new.events.len(), known.len())),
    }
    vocabulary(suite, table, &new, &mut out);
    shapes(&old, &new, &mut out);
    Ok(out)
}

fn versions_line(agent: &str, versions: &[Served], out: &mut Drift) {
    for served in versions.iter().filter(|s| packages(agent).contains(&s.package)) {
        let Served { package, pinned, served: latest, .. } = served;
        let moved = if pinned == latest { "= pinned" } else { "NEWER than the pin" };
        out.note(format!("{package}: pinned {pinned}, registry {latest} ({moved})"));
        if let Some(why) = &served.held_back {
            out.note(format!("{package} {latest} held back, the suite runs {pinned}: {why}"));
        }
    }
}

/// The words [`Agent::scan_noise`] lists for `kind`.
fn noise(agent: &dyn Agent, kind: &str) -> BTreeSet<&'static str> {
    agent.scan_noise().iter().filter(|(k, _, _)| *k == kind).flat_map(|(_, words, _)| words.iter().copied()).collect()
}

/// Keys, handler types and decision words beyond the table's vocabulary, where the entry keeps one.
fn vocabulary(agent: &dyn Agent, table: &hook_types::Agent, found: &Found, out: &mut Drift) {
    let vocabulary = &table.vocabulary;
    let checks: [(&str, &BTreeSet<String>, &[&str]); 4] = [
        ("answer keys", &found.answer_keys, vocabulary.answer_keys),
        ("handler keys", &found.handler_keys, vocabulary.handler_keys),
        ("handler types", &found.handler_types, vocabulary.handler_types),
        ("decision words", &found.decisions, vocabulary.decisions),
    ];
    for (what, seen, listed) in checks {
        if listed.is_empty() {
            if !seen.is_empty() {
                let words: Vec<&str> = seen.iter().map(String::as_str).collect();
                out.note(format!("{what} scanned (the table keeps none for this agent): {}", words.join(", ")));
            }
            continue;
        }
        let ignored = noise(agent, if what == "decision words" { "decisions" } else { what });
        let beyond: Vec<String> =
            seen.iter().filter(|w| !listed.contains(&w.as_str()) && !ignored.contains(w.as_str())).cloned().collect();
        out.undocumented(&format!("{what} beyond the table"), &beyond);
        out.note(format!("{what}: {} scanned, {} in the table", seen.len(), listed.len()));
    }
}

/// Serde shapes whose field count moved, appeared or went since the pinned release.
fn shapes(old: &Found, new: &Found, out: &mut Drift) {
    let mut moved = Vec::new();
    for (name, count) in &new.shapes {
        match old.shapes.get(name) {
            Some(before) if before == count => {}
            Some(before) => moved.push(format!("{name} {before} -> {count} fields")),
            None => moved.push(format!("{name} new ({count} fields)")),
        }
    }
    moved.extend(old.shapes.keys().filter(|k| !new.shapes.contains_key(*k)).map(|k| format!("{k} gone")));
    out.undocumented("wire shapes moved since the pinned release", &moved);
    if !new.shapes.is_empty() {
        out.note(format!("{} wire shapes scanned", new.shapes.len()));
    }
}

/// Installs the latest releases (the pinned install itself when every one is the pin) and returns where.
pub fn install_latest(root: &Path, versions: &[Served]) -> Result<Installed> {
    let same = versions.iter().all(|s| s.runs() == s.pinned);
    let prefix = if same { root.join("target/agents/npm") } else { root.join("target/agents/npm-latest") };
    let runs: Vec<(&str, String)> = versions.iter().map(|s| (s.package, s.runs().to_owned())).collect();
    npm::ensure_versions(&prefix, &runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_back_release_runs_the_pin_and_the_report_says_why() {
        let served = |held_back: Option<&str>| Served {
            package: "@kilocode/cli",
            pinned: "7.7.7",
            served: "7.8.1".to_owned(),
            held_back: held_back.map(str::to_owned),
        };
        assert_eq!(served(None).runs(), "7.8.1");
        let held =
            served(Some("the registry lacks its platform package for this machine (@kilocode/cli-linux-x64@7.8.1)"));
        assert_eq!(held.runs(), "7.7.7");
        let mut out = Drift::default();
        versions_line("kilo", &[held], &mut out);
        assert_eq!(
            out.lines,
            [
                "@kilocode/cli: pinned 7.7.7, registry 7.8.1 (NEWER than the pin)",
                "@kilocode/cli 7.8.1 held back, the suite runs 7.7.7: the registry lacks its platform package for this \
                 machine (@kilocode/cli-linux-x64@7.8.1)",
            ]
        );
        assert_eq!(out.undocumented, 0);
    }

    #[test]
    fn a_key_beyond_the_vocabulary_and_a_moved_shape_are_undocumented_and_noise_is_not() {
        let claude = &super::super::claude::Claude;
        let table = hook_types::Agent::parse("claude").unwrap();
        let mut found = Found::default();
        found.answer_keys.extend(["continue".to_owned(), "updatedToolOutput".to_owned()]);
        found.decisions.extend(["allow".to_owned(), "soft_deny".to_owned()]);
        let mut out = Drift::default();
        vocabulary(claude, table, &found, &mut out);
        assert_eq!(out.undocumented, 0, "{:?}", out.lines);
        found.answer_keys.insert("rewriteEverything".to_owned());
        vocabulary(claude, table, &found, &mut out);
        assert_eq!(out.undocumented, 1, "{:?}", out.lines);
        assert!(out.lines.iter().any(|l| l == "UNDOCUMENTED answer keys beyond the table: rewriteEverything"));

        let mut old = Found::default();
        old.shapes.insert("PreToolUseHookSpecificOutputWire".to_owned(), 5);
        let mut new = old.clone();
        let mut out = Drift::default();
        shapes(&old, &new, &mut out);
        assert_eq!(out.undocumented, 0);
        new.shapes.insert("PreToolUseHookSpecificOutputWire".to_owned(), 6);
        shapes(&old, &new, &mut out);
        assert_eq!(out.undocumented, 1, "{:?}", out.lines);
    }
}
