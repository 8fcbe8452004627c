//! The `conformance` group (`cargo xtask agents --conformance`): for a hook of an agent's own protocol, the
//! bridged outcome must equal the agent's native handling. Each case is a hook that prints a fixed answer
//! (stdout, stderr, exit code) on one event; it runs once configured natively in the agent's settings, and once
//! after `hook install` moved it behind `hook bridge`. The two runs are compared on:
//!
//! - the outcome: whether the tool ran (the sentinel), how many model turns there were, the agent's exit code;
//! - what the model saw: every line of the requests' strings that holds a case marker (`CASE-…`), per turn;
//! - what the agent showed: its hook statuses and notices ([`Agent::hook_status`]).
//!
//! Texts are normalized first: the hook's own command and the bridge's command (either spelling) read `<hook>`,
//! digits `#`.
//! The result is data, not a pass or fail: `N same, N different` per agent and one line per different case.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::Value;

use super::agent::{Agent, Approver, Point, Run, write_own_hooks};
use super::npm::Installed;
use super::process::Sandbox;
use super::server::Step;
use super::session::{Ctx, SENTINEL, Session, touch_sentinel};

/// One hook answer to compare.
struct Case {
    /// Its name, in the report.
    id: &'static str,
    /// The agents it applies to.
    agents: &'static [&'static str],
    /// The event it answers.
    point: Point,
    /// Its stdout.
    stdout: &'static str,
    /// Its stderr.
    stderr: &'static str,
    /// Its exit code.
    exit: i32,
}

const CC: &[&str] = &["claude", "codex"];
const CLAUDE: &[&str] = &["claude"];
const CODEX: &[&str] = &["codex"];
const GEMINI: &[&str] = &["gemini"];

const fn case(id: &'static str, agents: &'static [&'static str], point: Point, stdout: &'static str) -> Case {
    Case { id, agents, point, stdout, stderr: "", exit: 0 }
}

/// The cases, per agent.
const CASES: &[Case] = &[
    Case {
        stderr: "CASE-EXITTWO-STDERR refused",
        exit: 2,
        ..case(
            "pre_exit2_json_and_stderr",
            CC,
            Point::PreTool,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"CASE-EXITTWO-JSON"}}"#,
        )
    },
    Case {
        exit: 1,
        ..case(
            "pre_exit1_deny_json",
            CC,
            Point::PreTool,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CASE-EXITONE-X"}}"#,
        )
    },
    case("pre_continue_false", CC, Point::PreTool, r#"{"continue":false,"stopReason":"CASE-PRESTOP-REASON"}"#),
    case(
        "pre_deny_no_reason",
        CC,
        Point::PreTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
    ),
    case(
        "pre_deny_with_reason",
        CC,
        Point::PreTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CASE-DENY-REASON"}}"#,
    ),
    case("post_block", CC, Point::PostTool, r#"{"decision":"block","reason":"CASE-POSTBLOCK-REASON"}"#),
    case(
        "post_continue_false",
        CC,
        Point::PostTool,
        r#"{"continue":false,"stopReason":"CASE-POSTSTOP-STOP","reason":"CASE-POSTSTOP-REASON"}"#,
    ),
    case(
        "stop_additional_context",
        CC,
        Point::TurnEnd,
        r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"CASE-STOPCTX-TEXT"}}"#,
    ),
    case("stop_block", CC, Point::TurnEnd, r#"{"decision":"block","reason":"CASE-STOPBLOCK-GO-ON"}"#),
    case("session_start_unclosed_json", CC, Point::SessionStart, r#"{"hookSpecificOutput": CASE-BROKEN-JSON"#),
    case("session_start_plain_text", CC, Point::SessionStart, "CASE-SESSIONPLAIN-TEXT"),
    case(
        "prompt_block_suppress",
        CC,
        Point::TurnStart,
        r#"{"decision":"block","reason":"CASE-PROMPTBLOCK-REASON","suppressOriginalPrompt":true}"#,
    ),
    case(
        "prompt_additional_context",
        CC,
        Point::TurnStart,
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CASE-PROMPTCTX-TEXT"}}"#,
    ),
    Case { stderr: "CASE-WARN-STDERR careful", exit: 1, ..case("pre_exit1_stderr_warning", CC, Point::PreTool, "") },
    case("pre_unknown_field", CLAUDE, Point::PreTool, r#"{"systemMessage":"CASE-UNKNOWN-MSG","extraField":1}"#),
    case("pre_invalid_decision", CODEX, Point::PreTool, r#"{"decision":"maybe","reason":"CASE-INVALID-DECISION"}"#),
    case("pre_unclosed_json", CODEX, Point::PreTool, r#"{"decision": CASE-UNCLOSED"#),
    case("pre_unknown_field_strict", CODEX, Point::PreTool, r#"{"systemMessage":"CASE-UNKNOWN-MSG","extraField":1}"#),
    case("after_tool_deny", GEMINI, Point::PostTool, r#"{"decision":"deny","reason":"CASE-AFTERDENY-R"}"#),
    case("after_tool_continue_false", GEMINI, Point::PostTool, r#"{"continue":false,"stopReason":"CASE-AFTERSTOP-S"}"#),
    case("before_tool_ask", GEMINI, Point::PreTool, r#"{"decision":"ask"}"#),
    Case {
        stderr: "CASE-EXITTWOALLOW-ERR",
        exit: 2,
        ..case("before_tool_exit2_allow_json", GEMINI, Point::PreTool, r#"{"decision":"allow"}"#)
    },
    Case {
        stderr: "CASE-GWARN-STDERR careful",
        exit: 1,
        ..case("before_tool_stderr_warning", GEMINI, Point::PreTool, "")
    },
    Case { stderr: "CASE-GSTDERRONLY-TEXT", ..case("before_tool_stderr_exit0", GEMINI, Point::PreTool, "") },
    case("before_tool_deny", GEMINI, Point::PreTool, r#"{"decision":"deny","reason":"CASE-GDENY-REASON"}"#),
    case("before_agent_block", GEMINI, Point::TurnStart, r#"{"decision":"block","reason":"CASE-GBLOCK-REASON"}"#),
    case("after_agent_block", GEMINI, Point::TurnEnd, r#"{"decision":"block","reason":"CASE-GRETRY-REASON"}"#),
    case(
        "session_start_context",
        GEMINI,
        Point::SessionStart,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CASE-GSESSION-CTX"}}"#,
    ),
];

/// What one run showed, normalized for comparison.
#[derive(Debug, PartialEq)]
struct Observed {
    outcome: String,
    model: Vec<String>,
    shown: Vec<String>,
}

/// Runs every case of `agent` twice and prints the comparison; returns (same, different).
pub fn compare(agent: &dyn Agent, installed: &Installed, hook: &Path, runs: &Path) -> Result<(usize, usize)> {
    let (mut same, mut different) = (0, 0);
    for case in CASES.iter().filter(|c| c.agents.contains(&agent.name())) {
        let dir = runs.join(agent.name()).join("conformance").join(case.id);
        let native = observe(agent, installed, hook, &dir.join("native"), case, false);
        let bridged = observe(agent, installed, hook, &dir.join("bridged"), case, true);
        match (native, bridged) {
            (Ok(native), Ok(bridged)) if native == bridged => {
                same += 1;
                let _ = std::fs::remove_dir_all(&dir);
            }
            (Ok(native), Ok(bridged)) => {
                different += 1;
                println!("{:<7} {:<30} DIFFERENT  {}", agent.name(), case.id, difference(&native, &bridged));
            }
            (native, bridged) => {
                different += 1;
                let error = native.err().or(bridged.err()).map(|e| format!("{e:#}")).unwrap_or_default();
                println!("{:<7} {:<30} ERROR      {}", agent.name(), case.id, super::process::one_line(&error));
            }
        }
    }
    println!("{:<7} conformance: {same} same, {different} different", agent.name());
    Ok((same, different))
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
    String::new()
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
            "#!/bin/sh\ncat >/dev/null\nprintf '%s' {}\nprintf '%s' {} >&2\nexit {}\n",
            shell_quote(case.stdout),
            shell_quote(case.stderr),
            case.exit
        ),
    )?;
    let command = script.display().to_string();
    let matcher = matches!(case.point, Point::PreTool | Point::PostTool).then(|| agent.shell_matcher());
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
    let session = ctx.run(steps, Run { approver: Approver::Preapproved, ui: true })?;
    let bridge = format!("{} bridge --protocol {}", hook.display(), agent.name());
    let root = ctx.sandbox.root.display().to_string();
    let normalize = |text: &str| {
        let text = text.replace(&bridge, "<hook>").replace(&command, "<hook>").replace(&root, "<root>");
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
    })
}

/// Every line of every string in the model turns' requests that holds a case marker, as `turn N: line`.
fn model_saw(session: &Session) -> Vec<String> {
    let mut lines = Vec::new();
    for turn in &session.turns {
        let body: Value = serde_json::from_str(&turn.body).unwrap_or_default();
        let mut strings = Vec::new();
        collect_strings(&body, &mut strings);
        for line in strings.iter().flat_map(|s| s.lines()).filter(|l| l.contains("CASE-")) {
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
