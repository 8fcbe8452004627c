//! The `conformance` group (`cargo xtask agents --conformance`): for a hook of an agent's own protocol, the
//! bridged outcome must equal the agent's native handling. Each case is a hook that prints a fixed answer
//! (stdout, stderr, exit code) on one event; it runs once configured natively in the agent's settings, and once
//! after `hook install` moved it behind `hook bridge`. The two runs are compared on:
//!
//! - the outcome: whether the tool ran (the sentinel), how many model turns there were, the agent's exit code;
//! - what the model saw: every line of the conversation in the model requests that holds a case marker (`CASE-…`)
//!   or speaks of a hook, per turn;
//! - what the agent showed: its hook statuses and notices ([`Agent::hook_status`]);
//! - what the hook read: the keys of its stdin payload in their order, and whether it was compact JSON ending in a
//!   newline (the agent's own payload, byte for byte, is the contract).
//!
//! Texts are normalized first: the hook's own command and the bridge's command (either spelling) read `<hook>`,
//! digits `#`.
//! The result is data, not a pass or fail: `N same, N different` per agent and one line per different case. A
//! different case whose difference `docs/agents.md` documents as a fail-closed choice ([`cases::Case::documented`])
//! says so on its line and in the count; one documented but found the same says the document may be stale.

mod cases;

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::Value;

use super::agent::{Agent, Approver, Point, Run, write_own_hooks};
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Step;
use super::session::{Ctx, SENTINEL, Session, touch_sentinel};
use cases::{CASES, Case, DOC};

/// What one run showed, normalized for comparison.
#[derive(Debug, PartialEq)]
struct Observed {
    outcome: String,
    model: Vec<String>,
    shown: Vec<String>,
    payload: String,
}

/// The tally of one agent's cases.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Native and bridged alike.
    pub same: usize,
    /// Different (errors included).
    pub different: usize,
    /// Of the different ones, those `docs/agents.md` documents as a fail-closed choice.
    pub documented: usize,
}

/// Runs every case of `agent` (those whose id contains `only`, when given) twice and prints the comparison.
pub fn compare(
    agent: &dyn Agent,
    installed: &Installed,
    hook: &Path,
    runs: &Path,
    only: Option<&str>,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let selected = CASES
        .iter()
        .filter(|c| c.agents.contains(&agent.name()))
        .filter(|c| only.is_none_or(|only| c.id.contains(only)));
    for case in selected {
        let dir = runs.join(agent.name()).join("conformance").join(case.id);
        let native = observe(agent, installed, hook, &dir.join("native"), case, false);
        let bridged = observe(agent, installed, hook, &dir.join("bridged"), case, true);
        let name = agent.name();
        let documented = case.documented.map(|anchor| format!("documented fail-closed: {DOC}#{anchor}"));
        match (native, bridged) {
            (Ok(native), Ok(bridged)) if native == bridged => {
                tally.same += 1;
                if let Some(documented) = &documented {
                    println!("{name:<7} {:<30} same, though {documented}: the document may be stale", case.id);
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
            (Ok(native), Ok(bridged)) => {
                tally.different += 1;
                let verdict = match &documented {
                    Some(documented) => {
                        tally.documented += 1;
                        format!("different ({documented})")
                    }
                    None => "DIFFERENT".to_owned(),
                };
                println!("{name:<7} {:<30} {verdict}  {}", case.id, difference(&native, &bridged));
            }
            (native, bridged) => {
                tally.different += 1;
                let error = native.err().or(bridged.err()).map(|e| format!("{e:#}")).unwrap_or_default();
                println!("{name:<7} {:<30} ERROR      {}", case.id, super::process::one_line(&error));
            }
        }
    }
    println!(
        "{:<7} conformance: {} same, {} different ({} documented fail-closed, {} not)",
        agent.name(),
        tally.same,
        tally.different,
        tally.documented,
        tally.different - tally.documented
    );
    Ok(tally)
}

/// The first part that differs, as `native … | bridged …`.
fn difference(native: &Observed, bridged: &Observed) -> String {
    if native.outcome != bridged.outcome {
        return format!("outcome: native {} | bridged {}", native.outcome, bridged.outcome);
    }
    for (what, a, b) in [("model saw", &native.model, &bridged.model), ("shown", &native.shown, &bridged.shown)] {
        if a != b {
            let only_a: Vec<&String> = a.iter().filter(|l| !b.contains(l)).collect();
            let only_b: Vec<&String> = b.iter().filter(|l| !a.contains(l)).collect();
            return format!("{what}: native only {only_a:?} | bridged only {only_b:?}");
        }
    }
    if native.payload != bridged.payload {
        return format!("payload: native {} | bridged {}", native.payload, bridged.payload);
    }
    String::new()
}

/// How the hook is run in a case: who approves (a permission request needs an approver that is asked).
fn run_of(case: &Case) -> Run {
    let approver = match case.point {
        Point::PermissionRequest => Approver::Answers(true),
        _ => Approver::Preapproved,
    };
    Run { approver, ui: true }
}

fn observe(
    agent: &dyn Agent,
    installed: &Installed,
    hook: &Path,
    dir: &Path,
    case: &Case,
    bridged: bool,
) -> Result<Observed> {
    let ctx = Ctx::new(agent, installed, Sandbox::create(dir, hook)?, Duration::from_secs(40))?;
    let script = ctx.sandbox.write(
        ".case/hook.sh",
        &format!(
            "#!/bin/sh\ncat >\"$(dirname \"$0\")/stdin.json\"\nprintf '%s' {}\nprintf '%s' {} >&2\nexit {}\n",
            shell_quote(case.stdout),
            shell_quote(case.stderr),
            case.exit
        ),
    )?;
    let command = script.display().to_string();
    let matcher = matches!(case.point, Point::PreTool | Point::PostTool | Point::PermissionRequest)
        .then(|| agent.shell_matcher());
    write_own_hooks(agent, &ctx.sandbox, &[(case.point, matcher, &command)])?;
    if bridged {
        ctx.install(false)?;
    }
    let steps = match case.point {
        Point::PreTool | Point::PostTool | Point::PermissionRequest => {
            vec![touch_sentinel(), Step::Text("done".into())]
        }
        Point::TurnEnd => (1..=4).map(|i| Step::Text(format!("answer {i}"))).collect(),
        Point::SessionStart | Point::TurnStart => vec![Step::Text("done".into())],
    };
    // Claude Code 2.1.332 quotes a failed hook's command in its error line: the handler install wrote (the
    // fail-closed wrapper around the bridge) reads `<hook>` as the case's own command does.
    let installed_commands = if bridged { bridge_handlers(&ctx.sandbox, agent) } else { Vec::new() };
    let session = ctx.run(steps, run_of(case))?;
    let bridge = format!("{} bridge --protocol {}", hook.display(), agent.name());
    let root = ctx.sandbox.root.display().to_string();
    // Qwen Code names a project's state directory after its path, every other character a `-`.
    let mangled: String = root.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let normalize = |text: &str| {
        let text = installed_commands.iter().fold(text.to_owned(), |text, line| text.replace(line.as_str(), "<hook>"));
        let text = text.replace(&bridge, "<hook>").replace(&command, "<hook>").replace(&root, "<root>");
        let text = text.replace(&mangled, "<root>");
        normalize(&text, agent.name())
    };
    // `hook install` puts the bridge on every event: its runs on the other events are one difference of install
    // (reported once), not of this case.
    let other_events: Vec<String> = POINTS
        .iter()
        .filter(|p| **p != case.point)
        .filter_map(|p| agent.event(*p))
        .map(|name| format!("\"{}\"", name.to_ascii_lowercase()))
        .collect();
    let this_case = |line: &String| !other_events.iter().any(|e| line.to_ascii_lowercase().contains(e.as_str()));
    Ok(Observed {
        outcome: format!(
            "tool {}, {} turns, exit {:?}",
            if ctx.sandbox.exists(SENTINEL) { "ran" } else { "blocked" },
            session.turns.len(),
            session.finished.code
        ),
        model: model_saw(&session).iter().map(|l| normalize(l)).collect(),
        shown: agent
            .hook_status(&ctx.sandbox, &session.finished)
            .iter()
            .filter(|l| this_case(l))
            .map(|l| normalize(l))
            .collect(),
        payload: payload_shape(&std::fs::read(ctx.sandbox.ws.join(".case/stdin.json")).unwrap_or_default()),
    })
}

/// The shape of what the hook read on stdin: its top-level keys in order, whether it is compact JSON as serde
/// writes it (no whitespace between tokens), whether a newline ends it.
fn payload_shape(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "none".into();
    }
    let text = String::from_utf8_lossy(bytes);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(body) else {
        return format!("not a JSON object ({} bytes)", bytes.len());
    };
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let compact = serde_json::to_string(&object).is_ok_and(|written| written == body);
    format!("[{}] compact={compact} newline={}", keys.join(","), body.len() < text.len())
}

/// The keys of a model request that hold the agent's fixed instructions and tools (Messages, Responses and Gemini
/// APIs), the same in every run.
const FIXED: &[&str] = &["system", "tools", "instructions", "systemInstruction", "toolConfig"];

/// Every line of the conversation in the model turns' requests that holds a case marker or speaks of a hook (where
/// an agent's own words about a hook show: "PreToolUse:Bash hook error", "Hook PreToolUse:Bash denied this tool"),
/// as `turn N: line`.
fn model_saw(session: &Session) -> Vec<String> {
    let mut lines = Vec::new();
    for turn in &session.turns {
        let body: Value = serde_json::from_str(&turn.body).unwrap_or_default();
        let mut strings = Vec::new();
        // The conversation, not the agent's fixed instructions and tool list (which speak of hooks in general).
        let conversation = body.as_object().into_iter().flatten().filter(|(key, _)| !FIXED.contains(&key.as_str()));
        conversation.for_each(|(_, value)| collect_strings(value, &mut strings));
        // The word `hook` itself: not `.hooks/` or `hooks.yaml` in a listing of the workspace (`hook install`
        // leaves the native file there), which is no difference of the protocol.
        let relevant = |l: &&str| {
            l.contains("CASE-") || l.split(|c: char| !c.is_alphanumeric()).any(|w| w.eq_ignore_ascii_case("hook"))
        };
        for line in strings.iter().flat_map(|s| s.lines()).filter(relevant) {
            let line = format!("turn {}: {}", turn.turn.unwrap_or(0), line.trim());
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
    }
    lines
}

fn collect_strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// Every event a case can be on.
const POINTS: [Point; 6] =
    [Point::SessionStart, Point::TurnStart, Point::PreTool, Point::PermissionRequest, Point::PostTool, Point::TurnEnd];

/// Every command line in the agent's project settings that runs the bridge, longest first (a file that is no JSON,
/// or an agent whose hooks are files of their own, has none).
fn bridge_handlers(sandbox: &Sandbox, agent: &dyn Agent) -> Vec<String> {
    fn walk(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::String(text) if text.contains("bridge --protocol") => found.push(text.clone()),
            Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            Value::Object(map) => map.values().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(sandbox.ws.join(agent.settings_file())).unwrap_or_default();
    let mut found = Vec::new();
    if let Ok(json) = serde_json::from_str::<Value>(&text) {
        walk(&json, &mut found);
    }
    found.sort_by_key(|line| std::cmp::Reverse(line.len()));
    found.dedup();
    found
}

/// The bridge's and the own hook's names (Gemini CLI lists hooks by name) read `<name>`; the portable bridge
/// command reads `<hook>`; digits read `#`.
fn normalize(text: &str, agent: &str) -> String {
    let text = text
        .replace(&format!("hook bridge --protocol {agent}"), "<hook>")
        .replace(hook_agents::install::BRIDGE_NAME, "<name>")
        .replace("own-hook", "<name>");
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
