//! The conformance cases: one hook answer each (stdout, stderr, exit code) on one event, for the agents whose
//! protocol it exercises. A case whose bridged run differs from the native one on purpose names the section of
//! `docs/agents.md` that says why (`documented`); the comparison reports it as a documented fail-closed choice.

use super::super::agent::Point;

/// One hook answer to compare.
pub struct Case {
    /// Its name, in the report and for `--case`.
    pub id: &'static str,
    /// The agents it applies to.
    pub agents: &'static [&'static str],
    /// The event it answers.
    pub point: Point,
    /// Its stdout.
    pub stdout: &'static str,
    /// Its stderr.
    pub stderr: &'static str,
    /// Its exit code.
    pub exit: i32,
    /// The anchor in `docs/agents.md` of the fail-closed choice that makes the bridged run differ, if one does.
    pub documented: Option<&'static str>,
    /// The hook's `if` condition (Claude Code's permission-rule syntax), if it has one.
    pub condition: Option<&'static str>,
    /// The shell command the model runs on a tool event, where not the plain `touch SENTINEL`: the sentinel is
    /// touched only if the tool ran.
    pub shell: Option<&'static str>,
    /// Whether the tool must run (`Some(true)`) or be blocked (`Some(false)`) in both runs, where the case says.
    pub tool_runs: Option<bool>,
}

/// The file the anchors point into.
pub const DOC: &str = "docs/agents.md";

const CC: &[&str] = &["claude", "codex"];
const CLAUDE: &[&str] = &["claude"];
const CODEX: &[&str] = &["codex"];
const GEMINI: &[&str] = &["gemini"];
const ALL: &[&str] = &["claude", "codex", "gemini"];
const QWEN: &[&str] = &["qwen"];
/// Claude Code, Codex, Qwen Code and Factory Droid, whose answer has Claude Code's shape.
const CCQ: &[&str] = &["claude", "codex", "qwen", "droid"];

const fn case(id: &'static str, agents: &'static [&'static str], point: Point, stdout: &'static str) -> Case {
    Case {
        id,
        agents,
        point,
        stdout,
        stderr: "",
        exit: 0,
        documented: None,
        condition: None,
        shell: None,
        tool_runs: None,
    }
}

/// A deny guard scoped by an `if` condition (`hook install` moves it with its condition into the native file).
const IF_DENY: Case = Case {
    stderr: "CASE-IF-DENY pushes are reviewed first",
    exit: 2,
    condition: Some("Bash(git push *)"),
    ..case("pre_if_push_denied", CLAUDE, Point::PreTool, "")
};

/// The cases, per agent.
pub const CASES: &[Case] = &[
    // An `if`-scoped deny guard: the matching command (a subcommand of the line) is denied, the other runs.
    Case { shell: Some("git push origin main; touch SENTINEL"), tool_runs: Some(false), ..IF_DENY },
    Case { id: "pre_if_other_runs", shell: Some("git status; touch SENTINEL"), tool_runs: Some(true), ..IF_DENY },
    // Exit codes, with and without an answer on stdout.
    Case {
        stderr: "CASE-EXITTWO-STDERR refused",
        exit: 2,
        ..case(
            "pre_exit2_json_and_stderr",
            CCQ,
            Point::PreTool,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"CASE-EXITTWO-JSON"}}"#,
        )
    },
    Case {
        exit: 1,
        ..case(
            "pre_exit1_deny_json",
            CCQ,
            Point::PreTool,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CASE-EXITONE-X"}}"#,
        )
    },
    Case {
        exit: 3,
        ..case("pre_exit3_block_json", CLAUDE, Point::PreTool, r#"{"decision":"block","reason":"CASE-EXITTHREE-R"}"#)
    },
    Case {
        exit: 1,
        ..case("pre_exit1_system_message", CLAUDE, Point::PreTool, r#"{"systemMessage":"CASE-EXITONE-MSG"}"#)
    },
    Case { stderr: "CASE-WARN-STDERR careful", exit: 1, ..case("pre_exit1_stderr_warning", CCQ, Point::PreTool, "") },
    Case { stderr: "CASE-EXITTWO-ONLY", exit: 2, ..case("pre_exit2_stderr", CCQ, Point::PreTool, "") },
    // Halts and denials on the gate.
    Case {
        documented: Some("claude-code-continue-false-on-pretooluse"),
        ..case("pre_continue_false", CLAUDE, Point::PreTool, r#"{"continue":false,"stopReason":"CASE-PRESTOP-REASON"}"#)
    },
    case("pre_continue_false_codex", CODEX, Point::PreTool, r#"{"continue":false,"stopReason":"CASE-PRESTOP-REASON"}"#),
    case(
        "pre_deny_no_reason",
        CC,
        Point::PreTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
    ),
    case(
        "pre_deny_with_reason",
        CCQ,
        Point::PreTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CASE-DENY-REASON"}}"#,
    ),
    case("pre_block_no_reason", CLAUDE, Point::PreTool, r#"{"decision":"block"}"#),
    case(
        "pre_deny_and_stop",
        CLAUDE,
        Point::PreTool,
        r#"{"decision":"block","reason":"CASE-DENYSTOP-R","continue":false,"stopReason":"CASE-DENYSTOP-S"}"#,
    ),
    case("pre_plain_text", CLAUDE, Point::PreTool, "CASE-PREPLAIN-TEXT"),
    // After the tool.
    case("post_block", CCQ, Point::PostTool, r#"{"decision":"block","reason":"CASE-POSTBLOCK-REASON"}"#),
    case(
        "post_continue_false",
        CC,
        Point::PostTool,
        r#"{"continue":false,"stopReason":"CASE-POSTSTOP-STOP","reason":"CASE-POSTSTOP-REASON"}"#,
    ),
    // The end of a turn.
    // A Stop hook that always continues goes on natively until the scripted model ends the session (5 turns); through
    // the bridge the engine's cap of 3 continuations stops it first (4 turns), with a notice.
    Case {
        documented: Some("what-the-bridge-cannot-carry"),
        ..case(
            "stop_additional_context",
            CC,
            Point::TurnEnd,
            r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"CASE-STOPCTX-TEXT"}}"#,
        )
    },
    Case {
        documented: Some("what-the-bridge-cannot-carry"),
        ..case("stop_block", CC, Point::TurnEnd, r#"{"decision":"block","reason":"CASE-STOPBLOCK-GO-ON"}"#)
    },
    // Qwen Code continues for as long as a Stop hook blocks (up to its own cap of 8); through the bridge the engine's
    // cap of 3 continuations stops it first.
    Case {
        documented: Some("what-the-bridge-cannot-carry"),
        ..case("stop_block_qwen", QWEN, Point::TurnEnd, r#"{"decision":"block","reason":"CASE-STOPBLOCK-GO-ON"}"#)
    },
    // Claude Code's answers beyond the engine's effects (docs/agents.md#claude-code-21332-and-codex-01710): a
    // deferred call (`-p` stops at it), a rewritten tool output.
    case(
        "pre_defer",
        CLAUDE,
        Point::PreTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"CASE-DEFER-LATER"}}"#,
    ),
    case(
        "post_updated_tool_output",
        CLAUDE,
        Point::PostTool,
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"CASE-REWRITTEN-OUTPUT"}}"#,
    ),
    // The start of a session and of a turn.
    case("session_start_unclosed_json", CCQ, Point::SessionStart, r#"{"hookSpecificOutput": CASE-BROKEN-JSON"#),
    case("session_start_plain_text", CCQ, Point::SessionStart, "CASE-SESSIONPLAIN-TEXT"),
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
    case("prompt_plain_text", CC, Point::TurnStart, "CASE-PROMPTPLAIN-TEXT"),
    // Output the agent rejects or reads its own way.
    case("pre_unknown_field", CLAUDE, Point::PreTool, r#"{"systemMessage":"CASE-UNKNOWN-MSG","extraField":1}"#),
    case("pre_invalid_decision", CC, Point::PreTool, r#"{"decision":"maybe","reason":"CASE-INVALID-DECISION"}"#),
    case("pre_unclosed_json", CC, Point::PreTool, r#"{"decision": CASE-UNCLOSED"#),
    case("pre_wrong_type", CLAUDE, Point::PreTool, r#"{"continue":"no","systemMessage":"CASE-WRONGTYPE-MSG"}"#),
    case("pre_unknown_field_strict", CODEX, Point::PreTool, r#"{"systemMessage":"CASE-UNKNOWN-MSG","extraField":1}"#),
    // The permission request (Claude Code's SDK mode, an approver that allows).
    Case {
        stderr: "CASE-PERMTWO-STDERR",
        exit: 2,
        documented: Some("claude-code-exit-2-on-permissionrequest"),
        ..case("permission_exit2", CLAUDE, Point::PermissionRequest, "")
    },
    // Gemini CLI.
    case("after_tool_deny", GEMINI, Point::PostTool, r#"{"decision":"deny","reason":"CASE-AFTERDENY-R"}"#),
    case("after_tool_continue_false", GEMINI, Point::PostTool, r#"{"continue":false,"stopReason":"CASE-AFTERSTOP-S"}"#),
    case("before_tool_ask", GEMINI, Point::PreTool, r#"{"decision":"ask"}"#),
    Case {
        stderr: "CASE-EXITTWOALLOW-ERR",
        exit: 2,
        documented: Some("gemini-cli-a-blocking-exit-code-whose-answer-does-not-deny"),
        ..case("before_tool_exit2_allow_json", GEMINI, Point::PreTool, r#"{"decision":"allow"}"#)
    },
    Case {
        stderr: "CASE-GWARN-STDERR careful",
        exit: 1,
        ..case("before_tool_stderr_warning", GEMINI, Point::PreTool, "")
    },
    Case { stderr: "CASE-GSTDERRONLY-TEXT", ..case("before_tool_stderr_exit0", GEMINI, Point::PreTool, "") },
    Case {
        exit: 1,
        ..case("before_tool_exit1_deny_json", GEMINI, Point::PreTool, r#"{"decision":"deny","reason":"CASE-GONE-R"}"#)
    },
    Case { stderr: "CASE-GTHREE-ERR", exit: 3, ..case("before_tool_exit3_stderr", GEMINI, Point::PreTool, "") },
    case("before_tool_deny", GEMINI, Point::PreTool, r#"{"decision":"deny","reason":"CASE-GDENY-REASON"}"#),
    case(
        "before_tool_suppressed_message",
        GEMINI,
        Point::PreTool,
        r#"{"systemMessage":"CASE-GSUPPRESS-MSG","suppressOutput":true}"#,
    ),
    case("before_tool_invalid_json", GEMINI, Point::PreTool, r#"{"decision": CASE-GUNCLOSED"#),
    case("before_tool_deny_wrong_type", GEMINI, Point::PreTool, r#"{"decision":"deny","reason":["CASE-GTYPE-R"]}"#),
    case("before_agent_block", GEMINI, Point::TurnStart, r#"{"decision":"block","reason":"CASE-GBLOCK-REASON"}"#),
    // The continuation cap, as for Claude Code's and Codex's `stop_block`.
    Case {
        documented: Some("what-the-bridge-cannot-carry"),
        ..case("after_agent_block", GEMINI, Point::TurnEnd, r#"{"decision":"block","reason":"CASE-GRETRY-REASON"}"#)
    },
    case(
        "session_start_context",
        GEMINI,
        Point::SessionStart,
        r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CASE-GSESSION-CTX"}}"#,
    ),
    // Every agent: a hook that answers nothing, to compare payloads and statuses alone.
    case("pre_silent", ALL, Point::PreTool, ""),
];

#[cfg(test)]
mod tests {
    use super::{CASES, DOC};

    /// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`.
    fn anchor(heading: &str) -> String {
        heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    #[test]
    fn every_documented_difference_points_at_a_section_of_the_document() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DOC);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let anchors: Vec<String> =
            text.lines().filter_map(|l| l.strip_prefix('#')).map(|h| anchor(h.trim_start_matches('#'))).collect();
        for case in CASES {
            if let Some(documented) = case.documented {
                assert!(anchors.iter().any(|a| a == documented), "{}: no section `#{documented}` in {DOC}", case.id);
            }
        }
        let mut ids: Vec<&str> = CASES.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), CASES.len(), "case ids are unique");
    }
}
