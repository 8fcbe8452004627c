//! The per-protocol rule table: where the agents differ, one row each, as each real agent runs its hooks at the
//! version its table entry pins (checked by the real-agent suite, `cargo xtask agents --conformance`). Everything
//! else (how a run ended, what a failure becomes, what a block means on each event) is shared, in `classify` and
//! `builder`.

use hook_types::{Event, Protocol};

use super::builder::Builder;
use super::classify::Failure;
use super::codex::codex_unsupported;
use super::wire::{HookOutput, Known};
use super::{copilot, crush, cursor};

/// What the top-level `decision` asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Block,
    Allow,
    /// Ask the human (Gemini CLI's BeforeTool `ask`).
    Ask,
    /// Go ahead as if the hook had not decided.
    Proceed,
}

/// The native output protocol: `decision: "block" | "deny" | "approve" | "allow"`.
fn native_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[("block", Verb::Block), ("deny", Verb::Block), ("approve", Verb::Allow), ("allow", Verb::Allow)]
}

/// Claude Code hooks reference, "Decision control": `"block"` everywhere; the deprecated PreToolUse `"approve"`
/// still means allow. Factory Droid's hook output schema has the same two (`decision: "block" | "approve"`).
fn claude_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[("block", Verb::Block), ("approve", Verb::Allow)]
}

/// codex-rs/hooks/src/schema.rs: `PreToolUseDecisionWire` is approve | block (approve then rejected as unsupported),
/// `BlockDecisionWire` elsewhere is block only.
fn codex_words(event: &Event) -> &'static [(&'static str, Verb)] {
    if *event == Event::PreTool {
        &[("block", Verb::Block), ("approve", Verb::Allow)]
    } else {
        &[("block", Verb::Block)]
    }
}

/// Gemini CLI `DefaultHookOutput`: `"deny"` and `"block"` block, `"ask"` asks on BeforeTool (since 0.36.0), `"allow"`
/// skips no confirmation, so it is no decision here rather than an `allow_tool`.
fn gemini_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[("allow", Verb::Proceed), ("deny", Verb::Block), ("block", Verb::Block), ("ask", Verb::Ask)]
}

/// GitHub Copilot CLI, `agentStop` / `subagentStop` decision control: `"block"` forces another turn, `"allow"` lets
/// the agent stop (no decision here).
fn copilot_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[("block", Verb::Block), ("allow", Verb::Proceed)]
}

/// Crush: `decision` allow | deny; anything else is no opinion.
fn crush_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[("deny", Verb::Block), ("allow", Verb::Allow)]
}

/// Cursor has no `decision`.
fn no_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[]
}

/// Qwen Code `DefaultHookOutput.isBlockingDecision` (`"block"`, `"deny"`) and
/// `PreToolUseHookOutput.getPermissionDecision` (`"allow"`, `"approve"`, `"ask"`).
fn qwen_words(_: &Event) -> &'static [(&'static str, Verb)] {
    &[
        ("block", Verb::Block),
        ("deny", Verb::Block),
        ("allow", Verb::Allow),
        ("approve", Verb::Allow),
        ("ask", Verb::Ask),
    ]
}

/// What an exit code other than 0 and the blocking code means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OtherExit {
    /// The protocol does not define it: a hook failure ("exited with undefined code 7").
    Undefined,
    /// The protocol defines it as a non-blocking error (Claude Code, Gemini CLI): still a failure of the hook, so
    /// `on_error` applies, but the message says the agent would have carried on.
    NonBlocking,
}

/// Where the reason of a blocking exit comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReasonFrom {
    /// stderr only; stdout is ignored on a blocking exit (Claude Code, Codex, Gemini CLI, Cursor).
    Stderr,
    /// stderr, else stdout (native: "stderr is text, never parsed").
    StderrThenStdout,
    /// stdout, else stderr (mecha).
    StdoutThenStderr,
}

/// On which events the blocking exit code blocks, as the agent reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockExitOn {
    /// Every event.
    Every,
    /// Every event but the permission request, where the agent ignores it and its approver decides (Claude Code
    /// 2.1.332). This engine still denies there, the closed side, and so does not hand the answer back as it is.
    AllButPermission,
    /// pre_tool and the permission request only; elsewhere its stderr is a notice for the user (context for the
    /// model on a failed post_tool) and the run goes on (GitHub Copilot CLI).
    GatesOnly,
}

/// When stdout is read as a JSON answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Json {
    /// Never: stdout is only text (mecha).
    Never,
    /// When its first non-space character is one of these. Codex also treats `[` as JSON-looking, so a top-level
    /// array is invalid output rather than plain text.
    StartsWith(&'static [char]),
}

impl Json {
    /// Whether `body`, trimmed of leading space, is to be read as JSON.
    pub(crate) fn reads(self, body: &str) -> bool {
        match self {
            Json::Never => false,
            Json::StartsWith(starts) => body.starts_with(starts),
        }
    }
}

/// How the agent reads a run that exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// By exit code first: 0 reads stdout, the blocking code blocks, another code is a failure.
    ByExitCode,
    /// As [`Reading::ByExitCode`], but an exit code other than 0 and the blocking one still reads stdout: JSON that is
    /// a valid answer decides as on exit 0 (a deny denies); anything else leaves the non-blocking error (Claude Code
    /// 2.1.332).
    ByExitCodeJsonOnOtherExit,
    /// stdout, else stderr, is read whatever the exit code — JSON decides; plain text becomes a message on 0, a
    /// warning on 1 and a deny from 2 up (Gemini CLI's `hookRunner.ts`, see `gemini.rs`).
    OutputWhateverExit,
    /// The exit code is never read; stdout's JSON (or its last `HOOK_CONTROL` line) decides (Cline, see `cline.rs`).
    StdoutOnly,
}

/// What plain (non-JSON) stdout of a successful run becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plain {
    /// The hook's `as` effect (native, clio): an `inject_reminder` or an `annotate_tool_result`; a Feedback entry
    /// where neither is valid (session_end, foreign events).
    AsDeclared,
    /// Context for the model on turn_start and session_start, a Feedback entry elsewhere (Claude Code: "stdout is
    /// shown in the transcript, except UserPromptSubmit and SessionStart, where it is added as context").
    ContextOnPromptAndStart,
    /// Context on turn_start and session_start, invalid output on turn_end (where only JSON is an answer), ignored
    /// elsewhere (Codex: its Stop parser accepts JSON only; its `plain_stdout_is_ignored` tests).
    ContextOnPromptAndStartInvalidOnStop,
    /// A `notify_operator` (Gemini CLI's `convertPlainTextToHookOutput` turns it into a `systemMessage`).
    Notify,
    /// A Feedback entry and nothing else (Cursor, which reads JSON only).
    Feedback,
    /// Ignored (mecha reads stdout only as a deny reason).
    Ignored,
}

/// One protocol's row. Each row below states only how it differs from the row it builds on (`..NATIVE` or
/// `..CLAUDE_SHAPE`); [`NATIVE`] states every field.
#[derive(Debug)]
pub(crate) struct Rules {
    /// The exit code that blocks, if the protocol has one.
    pub block_exit: Option<i32>,
    /// On which events the blocking exit code blocks.
    pub block_exit_on: BlockExitOn,
    /// Where a blocking exit's reason comes from.
    pub block_reason: ReasonFrom,
    /// A blocking exit without a non-empty reason is invalid output (Codex), rather than a block with the default
    /// reason "blocked by hook `<id>`".
    pub reason_required: bool,
    /// The exit code that stops the agent (Factory Droid's 3): stdout JSON is still read, then the run halts with
    /// stderr as the reason, which on a gate also denies.
    pub halt_exit: Option<i32>,
    /// What other non-zero exit codes mean.
    pub other_exit: OtherExit,
    /// How a run that exited is read.
    pub reading: Reading,
    /// When stdout is read as JSON.
    pub json: Json,
    /// stdout that starts like JSON but does not parse is plain text, not invalid output (Claude Code 2.1.332; an
    /// answer that parses but breaks the schema still fails).
    pub unparsed_json_is_text: bool,
    /// What plain stdout becomes.
    pub plain: Plain,
    /// The fields the dialect reads on an event.
    pub known: fn(&Event) -> Known,
    /// Unknown JSON fields make the output invalid (Codex's `deny_unknown_fields` wire structs).
    pub reject_unknown: bool,
    /// The combination of fields the agent rejects as unsupported on an event, as the message of the failed run;
    /// `None` where the answer is one it takes (see `codex::codex_unsupported`).
    pub unsupported: fn(&Event, &HookOutput) -> Option<String>,
    /// The words the top-level `decision` may take on an event, and what each asks.
    pub decision_words: fn(&Event) -> &'static [(&'static str, Verb)],
    /// A block on post_tool (exit code or `decision: block`) reaches the model as an annotation of the tool result
    /// (Claude Code and Codex feed it to the model; Gemini CLI replaces the result with it); natively it is only a
    /// Feedback entry (docs/output-protocol.md).
    pub block_annotates_post_tool: bool,
    /// Context on post_tool is appended to the tool result, not to the context (Gemini CLI's `additionalContext` on
    /// AfterTool).
    pub context_annotates_post_tool: bool,
    /// Context on turn_end keeps the turn going with that text (Claude Code 2.1.332 runs another model turn on a
    /// Stop hook's `additionalContext`).
    pub context_continues_turn: bool,
    /// `continue: false` on pre_tool lets the tool run before the agent stops (Claude Code 2.1.332); this engine
    /// denies the tool there, the closed side.
    pub halt_runs_the_tool: bool,
    /// The answer is flat, its decision fields at the top level, read by this function in place of the halt
    /// (Cursor, GitHub Copilot CLI).
    pub flat_answer: Option<FlatAnswer>,
    /// On session_start, session_end, notification and compaction the answer's flow-control fields (`decision`,
    /// `continue`) are ignored: those events are advisory (Gemini CLI; its AfterTool still reads them).
    pub advisory_ignores_flow_control: bool,
    /// `continue: false` on post_tool also feeds the model `reason` as a block, else this text, which is also the
    /// stop reason's default (Codex's PostToolUse).
    pub post_tool_halt_feeds_model: Option<&'static str>,
    /// `permissionDecision: allow` on pre_tool skips the approver; where false it only carries `updatedInput`
    /// (Codex's PreToolUse has no approval to skip).
    pub pre_tool_allow_decides: bool,
    /// `permissionDecision: defer` on pre_tool hands the call to the normal permission flow, as if the hook had not
    /// decided (Claude Code).
    pub pre_tool_defers: bool,
    /// The reason of a permission request's deny that gives no message, where the agent has its own (Codex's
    /// "PermissionRequest hook denied approval"); else "blocked by hook `<id>`".
    pub permission_deny_reason: Option<&'static str>,
}

/// A dialect's reading of its flat answer (see [`Rules::flat_answer`]).
pub(crate) type FlatAnswer = fn(&mut Builder<'_>, &HookOutput) -> Result<(), Failure>;

/// Every answer is one the agent takes.
fn all_supported(_: &Event, _: &HookOutput) -> Option<String> {
    None
}

const NATIVE_TOP: &[&str] = &[
    "effects",
    "decision",
    "reason",
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "hookSpecificOutput",
];
const CLAUDE_TOP: &[&str] =
    &["decision", "reason", "continue", "stopReason", "systemMessage", "suppressOutput", "hookSpecificOutput"];
const SPECIFIC: &[&str] = &[
    "hookEventName",
    "permissionDecision",
    "permissionDecisionReason",
    "updatedInput",
    "additionalContext",
    "decision",
];
const NATIVE_DECISION: &[&str] = &["behavior", "message", "updatedInput"];
const CLAUDE_DECISION: &[&str] = &["behavior", "message", "updatedInput", "updatedPermissions", "interrupt"];
const NONE: &[&str] = &[];

fn native_known(_: &Event) -> Known {
    Known { top: NATIVE_TOP, specific: SPECIFIC, decision: NATIVE_DECISION }
}

fn claude_known(_: &Event) -> Known {
    Known { top: CLAUDE_TOP, specific: SPECIFIC, decision: CLAUDE_DECISION }
}

/// Codex's wire structs per event (codex-rs/hooks/src/schema.rs): the universal fields everywhere, `decision` and
/// `reason` where the event can block, and each event's own `hookSpecificOutput`.
fn codex_known(event: &Event) -> Known {
    const UNIVERSAL: &[&str] = &["continue", "stopReason", "suppressOutput", "systemMessage"];
    const BLOCKING: &[&str] =
        &["continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "hookSpecificOutput"];
    const STOP: &[&str] = &["continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason"];
    const SPECIFIC_ONLY: &[&str] = &["continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"];
    match event {
        Event::PreTool => Known {
            top: BLOCKING,
            specific: &[
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ],
            decision: NONE,
        },
        Event::PermissionRequest => {
            Known { top: SPECIFIC_ONLY, specific: &["hookEventName", "decision"], decision: CLAUDE_DECISION }
        }
        Event::PostTool => Known {
            top: BLOCKING,
            specific: &["hookEventName", "additionalContext", "updatedMCPToolOutput"],
            decision: NONE,
        },
        Event::TurnStart => Known { top: BLOCKING, specific: &["hookEventName", "additionalContext"], decision: NONE },
        Event::SessionStart => {
            Known { top: SPECIFIC_ONLY, specific: &["hookEventName", "additionalContext"], decision: NONE }
        }
        Event::TurnEnd => Known { top: STOP, specific: NONE, decision: NONE },
        _ => Known { top: UNIVERSAL, specific: NONE, decision: NONE },
    }
}

/// Gemini CLI's common output fields plus the `hookSpecificOutput` fields this engine can act on.
fn gemini_known(_: &Event) -> Known {
    Known { top: CLAUDE_TOP, specific: &["hookEventName", "additionalContext", "tool_input"], decision: NONE }
}

/// Cursor's flat output fields (`permission`, `user_message`, `agent_message`, `continue`, `followup_message`,
/// `additional_context`).
fn cursor_known(_: &Event) -> Known {
    Known {
        top: &["permission", "user_message", "agent_message", "continue", "followup_message", "additional_context"],
        specific: NONE,
        decision: NONE,
    }
}

/// GitHub Copilot CLI's top-level answer fields (hooks reference, "decision control" and "output" sections):
/// `permissionDecision`, `permissionDecisionReason`, `modifiedArgs` (preToolUse); `behavior`, `message`, `interrupt`
/// (permissionRequest); `decision`, `reason` (agentStop, subagentStop); `additionalContext`.
/// Crush's envelope, and Claude Code's `hookSpecificOutput` fields its `parseClaudeCodeOutput` reads.
fn crush_known(_: &Event) -> Known {
    Known {
        top: &["version", "decision", "halt", "reason", "context", "updated_input", "hookSpecificOutput"],
        specific: &["permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"],
        decision: NONE,
    }
}

fn copilot_known(_: &Event) -> Known {
    Known {
        top: &[
            "permissionDecision",
            "permissionDecisionReason",
            "modifiedArgs",
            "behavior",
            "message",
            "interrupt",
            "decision",
            "reason",
            "additionalContext",
        ],
        specific: NONE,
        decision: NONE,
    }
}

fn nothing_known(_: &Event) -> Known {
    Known { top: NONE, specific: NONE, decision: NONE }
}

/// docs/output-protocol.md: exit 2 blocks with stderr, else stdout; other codes are undefined; `{`-first stdout is
/// JSON; plain stdout is the `as` effect; unknown fields are accepted. The base every other row builds on.
static NATIVE: Rules = Rules {
    block_exit: Some(2),
    block_exit_on: BlockExitOn::Every,
    block_reason: ReasonFrom::StderrThenStdout,
    reason_required: false,
    halt_exit: None,
    other_exit: OtherExit::Undefined,
    reading: Reading::ByExitCode,
    json: Json::StartsWith(&['{']),
    unparsed_json_is_text: false,
    plain: Plain::AsDeclared,
    known: native_known,
    reject_unknown: false,
    unsupported: all_supported,
    decision_words: native_words,
    block_annotates_post_tool: false,
    context_annotates_post_tool: false,
    context_continues_turn: false,
    halt_runs_the_tool: false,
    flat_answer: None,
    advisory_ignores_flow_control: false,
    post_tool_halt_feeds_model: None,
    pre_tool_allow_decides: true,
    pre_tool_defers: false,
    permission_deny_reason: None,
};

/// Claude Code's answer and exit codes as the agents that copy it (Qwen Code, Factory Droid) read them: exit 2
/// feeds stderr back (stdout and JSON are ignored); any other code reads stdout JSON that is a valid answer as on
/// exit 0 and is otherwise a non-blocking error; stdout that does not parse as JSON is plain text, while JSON that
/// breaks the schema is a non-blocking error; unknown fields are ignored. An exit 2 with empty stderr still blocks,
/// with the default reason. Where Claude Code can block something this engine has no effect for (PreCompact's exit
/// 2 blocks compaction), the reason is a Feedback entry.
const CLAUDE_SHAPE: Rules = Rules {
    block_reason: ReasonFrom::Stderr,
    other_exit: OtherExit::NonBlocking,
    reading: Reading::ByExitCodeJsonOnOtherExit,
    unparsed_json_is_text: true,
    plain: Plain::ContextOnPromptAndStart,
    known: claude_known,
    decision_words: claude_words,
    block_annotates_post_tool: true,
    ..NATIVE
};

/// Claude Code 2.1.332 as the real-agent suite observes it: Claude Code's shape, and three readings laxer than the
/// engine's own where this engine keeps the closed side: a Stop hook's `additionalContext` runs another model turn,
/// `continue: false` on PreToolUse lets the tool run, and exit 2 on PermissionRequest is ignored.
static CLAUDE: Rules = Rules {
    block_exit_on: BlockExitOn::AllButPermission,
    context_continues_turn: true,
    halt_runs_the_tool: true,
    pre_tool_defers: true,
    ..CLAUDE_SHAPE
};

/// Codex 0.171.0, codex-rs/hooks/src/events/*.rs `parse_completed` and engine/output_parser.rs: exit 2 needs a reason
/// on stderr, other codes fail, `{` or `[` means JSON, unknown fields and unsupported combinations fail.
static CODEX: Rules = Rules {
    block_reason: ReasonFrom::Stderr,
    reason_required: true,
    json: Json::StartsWith(&['{', '[']),
    plain: Plain::ContextOnPromptAndStartInvalidOnStop,
    known: codex_known,
    reject_unknown: true,
    unsupported: codex_unsupported,
    decision_words: codex_words,
    block_annotates_post_tool: true,
    post_tool_halt_feeds_model: Some("PostToolUse hook stopped execution"),
    pre_tool_allow_decides: false,
    permission_deny_reason: Some("PermissionRequest hook denied approval"),
    ..NATIVE
};

/// Gemini CLI 0.61.0, `hookRunner.ts` as the real-agent suite observes it: stdout, else stderr, is read whatever the
/// exit code; JSON decides (`ask` on BeforeTool since 0.36.0); plain text is a message on 0, a "Warning: " message
/// on 1, a deny from 2 up. Where the exit code blocks and the JSON does not, this engine denies (the closed side).
static GEMINI: Rules = Rules {
    block_reason: ReasonFrom::Stderr,
    other_exit: OtherExit::NonBlocking,
    reading: Reading::OutputWhateverExit,
    unparsed_json_is_text: true,
    plain: Plain::Notify,
    known: gemini_known,
    decision_words: gemini_words,
    block_annotates_post_tool: true,
    context_annotates_post_tool: true,
    advisory_ignores_flow_control: true,
    ..NATIVE
};

/// Cursor hooks docs: JSON `permission` / `user_message` / `agent_message`; exit 2 blocks like `permission: deny`;
/// other codes are a failed hook (fail open unless `failClosed`, which loading turns into `on_error: deny`).
static CURSOR: Rules = Rules {
    block_reason: ReasonFrom::Stderr,
    plain: Plain::Feedback,
    known: cursor_known,
    decision_words: no_words,
    flat_answer: Some(cursor::cursor),
    ..NATIVE
};

/// mecha (docs/declarations.md#foreign-formats): exit 0 allows, exit 2 denies with stdout (else stderr) as the
/// reason, anything else is a failure; stdout is never parsed. mecha's "allows" means "does not object": it is a pass
/// here, not an `allow_tool`, because a guard script that exits 0 was never meant to skip the human approver.
static MECHA: Rules = Rules {
    block_reason: ReasonFrom::StdoutThenStderr,
    json: Json::Never,
    plain: Plain::Ignored,
    known: nothing_known,
    ..NATIVE
};

/// clio-coder (docs/declarations.md#foreign-formats): the native rules — native JSON with camelCase aliases — but
/// with no blocking exit code. A hook speaks through effects, so any non-zero exit, 2 included, is a failed command,
/// and a failed command emits nothing. clio-coder documents no blocking exit code; treating 2 as a deny would turn a
/// crashing script into a policy decision its author never wrote.
static CLIO: Rules = Rules { block_exit: None, ..NATIVE };

/// Qwen Code 0.24.4, its hook runner (`chunks/chunk-DPEB6S2R.js` of the npm bundle, packages/core/src/hooks) and
/// output classes (`chunks/chunk-QA5TENCT.js`): Claude Code's JSON answer (`hookSpecificOutput.permissionDecision`,
/// `decision`, `continue`, `systemMessage`), exit 2 blocks with stderr, another non-zero code is a non-blocking
/// error whose JSON still decides (it reads stdout, else stderr, whatever the code), plain stdout is context on
/// SessionStart and UserPromptSubmit, and output that starts like a JSON object but does not parse is a failed run
/// (`Hook output is not valid JSON`), not text. Claude Code's observed quirks are not Qwen Code's documented
/// behaviour, so it builds on Claude Code's shape, where the engine's own, closed reading applies.
static QWEN: Rules = Rules { unparsed_json_is_text: false, decision_words: qwen_words, ..CLAUDE_SHAPE };

/// Factory Droid 0.225.2, `executeCommand` and the PreToolUse, PostToolUse, Stop and PreCompact handlers of the
/// JavaScript bundled into its `droid` binary: stdout that starts with `{` is parsed whatever the exit code (a parse
/// failure is logged and the text ignored), Claude Code's fields (`decision` block or approve,
/// `hookSpecificOutput.permissionDecision`, `continue`, `systemMessage`); exit 2 blocks with stderr; exit 3 aborts
/// the agent with stderr; other codes are errors the agent carries on from. Exit 2 with a JSON allow denies with stderr
/// in the real `droid exec` (the real-agent suite's conformance case `pre_exit2_json_and_stderr`), as here.
static DROID: Rules = Rules { halt_exit: Some(3), ..CLAUDE_SHAPE };

/// Cline 3.0.65 (`@cline/core` 0.0.86, hooks/subprocess-runner.ts and hook-file-hooks.ts): no exit code means
/// anything, stdout is JSON `{cancel, contextModification, errorMessage, overrideInput}` read by `cline.rs`.
static CLINE: Rules = Rules {
    block_exit: None,
    reading: Reading::StdoutOnly,
    plain: Plain::Ignored,
    known: nothing_known,
    decision_words: no_words,
    ..NATIVE
};

/// GitHub Copilot CLI 1.0.102, <https://docs.github.com/en/copilot/reference/hooks-reference> ("Exit codes for command
/// hooks", "How stdout is parsed"): exit 0 reads stdout as one JSON object, and output that is empty or does not parse
/// is no output at all; exit 2 denies on preToolUse and permissionRequest (a JSON allow beside it is overridden) and
/// is a warning shown to the user elsewhere (on postToolUseFailure its text goes to the model); any other code is a
/// failed hook, which denies on preToolUse (its `default_on_error`) and is logged and skipped elsewhere. Its answer
/// is flat: `permissionDecision`, `behavior`, `decision`, `additionalContext` at the top level (`json.rs`).
/// `additionalContext` on postToolUse is appended to the tool result the model reads.
static COPILOT: Rules = Rules {
    block_exit_on: BlockExitOn::GatesOnly,
    block_reason: ReasonFrom::Stderr,
    unparsed_json_is_text: true,
    plain: Plain::Ignored,
    known: copilot_known,
    decision_words: copilot_words,
    context_annotates_post_tool: true,
    flat_answer: Some(copilot::copilot),
    ..NATIVE
};

/// Crush at commit 37f36e9 (docs/hooks/README.md, "Output"; internal/hooks/runner.go and input.go): exit 0 reads
/// stdout as JSON — its envelope (`crush.rs`) or Claude Code's `hookSpecificOutput` — and text that does not parse is
/// no opinion; exit 2 blocks the call with stderr as the reason; exit 49 halts the turn with stderr; any other code,
/// and a timeout, is a non-blocking error (the call proceeds).
static CRUSH: Rules = Rules {
    block_reason: ReasonFrom::Stderr,
    other_exit: OtherExit::NonBlocking,
    halt_exit: Some(49),
    plain: Plain::Ignored,
    known: crush_known,
    decision_words: crush_words,
    flat_answer: Some(crush::crush),
    ..NATIVE
};

/// An agent of in-process plugins (OpenCode, Kilo Code CLI): the plugin `hook install` writes reads the bridge's
/// answer in Claude Code's shape, so a hook that names the agent's protocol is read so too.
static PLUGIN: Rules = CLAUDE_SHAPE;

/// Auggie 0.36.0 (`wao`, `zIt` and `_7n` in its bundle): Claude Code's shape, but only exit 0 and exit 2 read stdout
/// (any other code is a non-blocking error, its stdout unread), and exit 2 blocks PreToolUse alone: elsewhere its
/// stderr is a message (for the model on PostToolUse and Stop, for the user on the others) and the run goes on.
static AUGGIE: Rules = Rules { block_exit_on: BlockExitOn::GatesOnly, reading: Reading::ByExitCode, ..CLAUDE_SHAPE };

/// The row of `protocol`.
pub(crate) fn rules(protocol: Protocol) -> &'static Rules {
    match protocol {
        Protocol::Native => &NATIVE,
        Protocol::Claude => &CLAUDE,
        Protocol::Codex => &CODEX,
        Protocol::Gemini => &GEMINI,
        Protocol::Cursor => &CURSOR,
        Protocol::Mecha => &MECHA,
        Protocol::Clio => &CLIO,
        Protocol::Qwen => &QWEN,
        Protocol::Droid => &DROID,
        Protocol::Cline => &CLINE,
        Protocol::Copilot => &COPILOT,
        Protocol::Crush => &CRUSH,
        Protocol::Auggie => &AUGGIE,
        // An agent of in-process plugins (OpenCode's) runs no command hook; its plugin reads Claude Code's answer.
        _ => &PLUGIN,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    type Fields = BTreeMap<&'static str, &'static str>;

    /// Each row of this file as written: the source text of the fields it states, and the row it builds on.
    fn rows_as_written() -> BTreeMap<&'static str, (Fields, Option<&'static str>)> {
        let source = include_str!("rules.rs");
        // Split so that this line is not itself a match.
        let marker = [": Rules =", " Rules {"].concat();
        let mut rows = BTreeMap::new();
        for (start, _) in source.match_indices(&marker) {
            let name = source[..start].rsplit(' ').next().unwrap();
            let body = &source[start + marker.len()..];
            let body = &body[..body.find("};").unwrap()];
            let (mut fields, mut base, mut depth, mut quoted, mut from) = (Fields::new(), None, 0, false, 0);
            for (i, c) in body.char_indices().chain([(body.len(), ',')]) {
                match c {
                    '\'' => quoted = !quoted,
                    _ if quoted => {}
                    '[' | '(' => depth += 1,
                    ']' | ')' => depth -= 1,
                    ',' if depth == 0 => {
                        let item = body[from..i].trim();
                        from = i + 1;
                        if let Some(name) = item.strip_prefix("..") {
                            base = Some(name);
                        } else if let Some((field, value)) = item.split_once(':') {
                            fields.insert(field.trim(), value.trim());
                        }
                    }
                    _ => {}
                }
            }
            rows.insert(name, (fields, base));
        }
        rows
    }

    /// Every field of `row`, its own or its base's.
    fn resolved(rows: &BTreeMap<&'static str, (Fields, Option<&'static str>)>, row: &str) -> Fields {
        let (fields, base) = &rows[row];
        let mut all = base.map(|base| resolved(rows, base)).unwrap_or_default();
        all.extend(fields);
        all
    }

    #[test]
    fn each_row_states_only_how_it_differs_from_its_base() {
        let rows = rows_as_written();
        // The agents of plugins (OpenCode, Kilo) read Claude Code's shape itself: no row of their own.
        assert_eq!(rows.len(), 14, "the thirteen protocols with a row and Claude Code's shape: {:?}", rows.keys());
        let native = &rows["NATIVE"];
        assert_eq!((native.0.len(), native.1), (24, None), "the native row states every field");
        for (name, (fields, base)) in &rows {
            let Some(base) = base else { continue };
            let inherited = resolved(&rows, base);
            assert!(!fields.is_empty(), "{name} is {base} again");
            for (field, value) in fields {
                let from_base = inherited.get(field);
                assert!(from_base.is_some(), "{name}: `{field}` is no field of {base}");
                assert_ne!(from_base, Some(value), "{name} repeats `{field}: {value}` of {base}");
            }
        }
    }
}
