//! The human trace of one dispatch: each hook's status, time and entries, then the verdict, its reason and the
//! effects — within 80 columns, with everything a hook wrote stripped of control characters.

use hook_middleware::{DispatchResult, EventInput};
use hook_types::{Effect, EntryKind, RunStatus, RunSummary, Verdict};

use crate::render::{Painter, Style, WIDTH, clean_line, duration, wrap};

/// The whole trace.
pub fn render(input: &EventInput, result: &DispatchResult, painter: &Painter) -> String {
    let mut out = String::new();
    let mut header = input.event.to_string();
    if let Some(tool) = &input.tool_name {
        header.push_str(&format!(" · tool {}", clean_line(&crate::render::tool_label(tool))));
    }
    header.push_str(&format!(" · {} hook{}", result.runs.len(), if result.runs.len() == 1 { "" } else { "s" }));
    out.push_str(&painter.paint(Style::Bold, &header));
    out.push('\n');
    if let Some(tool_input) = &input.tool_input {
        let text = clean_line(&tool_input.to_string());
        out.push_str(&painter.paint(Style::Dim, &cut(&format!("input {text}"), WIDTH)));
        out.push('\n');
    }
    for run in &result.runs {
        render_run(&mut out, run, painter);
    }
    for id in &result.background {
        let line =
            format!("async    {} started in the background; its receipt is written when it ends", clean_line(id));
        out.push_str(&painter.paint(Style::Dim, &cut(&line, WIDTH)));
        out.push('\n');
    }
    out.push('\n');
    let style = match result.verdict {
        Verdict::Deny => Style::Red,
        Verdict::Ask => Style::Yellow,
        Verdict::Allow | Verdict::Pass => Style::Green,
        Verdict::None => Style::Bold,
    };
    out.push_str(&format!("verdict  {}\n", painter.paint(style, result.verdict.as_str())));
    if let Some(reason) = &result.reason {
        push_wrapped(&mut out, &clean_line(reason), "reason   ", "         ");
    }
    for (i, effect) in result.effects.iter().enumerate() {
        let label = if i == 0 { "effects  " } else { "         " };
        push_wrapped(&mut out, &clean_line(&describe_effect(effect)), label, "           ");
    }
    if result.halted {
        out.push_str("halt     the host stops the agent's run after this event\n");
    }
    for (i, notice) in result.notices.iter().enumerate() {
        let label = if i == 0 { "notice   " } else { "         " };
        push_wrapped(&mut out, &painter.paint(Style::Yellow, &clean_line(notice)), label, "         ");
    }
    out
}

/// One effect in words: its kind, then what it says.
pub fn describe_effect(effect: &Effect) -> String {
    let text = match effect {
        Effect::InjectReminder { message, severity: s } => format!("[{}] {message}", wire(s)),
        Effect::AnnotateToolResult { message, severity: s } => format!("[{}] {message}", wire(s)),
        Effect::BlockTool { reason, .. } | Effect::BlockTurn { reason } | Effect::Halt { reason } => reason.clone(),
        Effect::AllowTool { reason } | Effect::AskUser { reason } => reason.clone().unwrap_or_default(),
        Effect::RewriteToolInput { input } => serde_json::Value::Object(input.clone()).to_string(),
        Effect::ProtectPath { path, reason } => format!("{path}: {reason}"),
        Effect::RequireTool { tool_name } => tool_name.clone(),
        Effect::LockTools {} => String::new(),
        Effect::RequestContinuation { message } => message.clone(),
        Effect::NotifyOperator { message, key } => format!("[{key}] {message}"),
    };
    format!("{} {text}", effect.kind()).trim_end().to_owned()
}

/// The wire name of a severity (`hard-block`, `warn`).
fn wire<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn render_run(out: &mut String, run: &RunSummary, painter: &Painter) {
    let (word, style) = match run.status {
        RunStatus::Completed => ("completed", Style::Green),
        RunStatus::Blocked => ("blocked", Style::Red),
        RunStatus::Failed => ("failed", Style::Red),
        RunStatus::TimedOut => ("timed out", Style::Red),
        RunStatus::Skipped => ("skipped", Style::Yellow),
        RunStatus::Untrusted => ("untrusted", Style::Yellow),
        RunStatus::Cancelled => ("cancelled", Style::Yellow),
    };
    out.push_str(&format!("  {} {}\n", painter.paint(style, &format!("{word:<10}")), clean_line(&run.hook_id)));
    let mut facts = vec![run.origin.map_or("host".to_owned(), |o| o.to_string()), run.protocol.to_string()];
    if let Some(code) = run.exit_code {
        facts.push(format!("exit {code}"));
    }
    facts.push(duration(run.duration_ms));
    out.push_str(&painter.paint(Style::Dim, &format!("             {}", facts.join(" · "))));
    out.push('\n');
    for entry in &run.entries {
        let kind = match entry.kind {
            EntryKind::Feedback => "feedback",
            EntryKind::Warning => "warning",
            EntryKind::Error => "error",
            EntryKind::Context => "context",
        };
        push_wrapped(out, &clean_line(&entry.text), &format!("             {kind:<9}"), &" ".repeat(22));
    }
}

fn push_wrapped(out: &mut String, text: &str, first: &str, rest: &str) {
    for line in wrap(text, first, rest) {
        out.push_str(&line);
        out.push('\n');
    }
}

/// `text` cut to `width` characters, ending in `…` when cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.push('…');
    cut
}
