//! `hook doctor`'s text: per agent a verdict line, its version, one line per guard path, what the probe saw, the
//! gates on its shell and write tools, then each finding with its fix.

use std::path::Path;

use crate::context::display_path_from;
use crate::render::{Painter, Style, clean_line, wrap};

use super::{AgentReport, Report};

/// The report as text for 80 columns.
pub fn text(report: &Report, workspace: &Path, painter: &Painter) -> String {
    let cwd = std::env::current_dir().ok();
    let show = |p: &Path| clean_line(&display_path_from(p, cwd.as_deref()));
    let mut out = String::new();
    match &report.hook.on_path {
        Some(found) if *found == report.hook.running => {
            out.push_str(&format!("hook on PATH: {} (this build)\n", show(found)))
        }
        Some(found) => {
            out.push_str(&format!("hook on PATH: {} (not this build: {})\n", show(found), show(&report.hook.running)))
        }
        None => out.push_str("hook on PATH: none\n"),
    }
    if report.agents.is_empty() {
        out.push_str(&format!(
            "no agent is installed or present for {}: `hook install --agent AGENT` puts the bridge in one\n",
            show(workspace)
        ));
    }
    for agent in &report.agents {
        out.push('\n');
        agent_text(&mut out, agent, report.probed, painter, &show);
    }
    let verdict = if report.live {
        painter.paint(Style::Green, "every guard is live")
    } else {
        painter.paint(Style::Red, "not every guard is live")
    };
    out.push_str(&format!("\n{verdict}\n"));
    out
}

fn agent_text(out: &mut String, agent: &AgentReport, probed: bool, painter: &Painter, show: &dyn Fn(&Path) -> String) {
    let state = if agent.live { painter.paint(Style::Green, "live") } else { painter.paint(Style::Red, "NOT LIVE") };
    out.push_str(&painter.paint(Style::Bold, &format!("{} ({})", agent.name, agent.agent)));
    out.push_str(&format!(": {state}\n"));
    let version = &agent.version;
    let installed = version.installed.as_deref().unwrap_or("unknown");
    let verified = version.verified.unwrap_or("no pinned release");
    out.push_str(&format!("  version: {installed} (verified against {verified})\n"));
    if let Some(note) = &version.note {
        push_wrapped(out, &format!("note: {}", clean_line(note)), "    ");
    }
    for guard in &agent.guards {
        let state =
            if guard.live { painter.paint(Style::Green, "live") } else { painter.paint(Style::Red, "not live") };
        let why = if guard.why_not.is_empty() { String::new() } else { format!(" ({})", guard.why_not.join(", ")) };
        let line = format!("guard {} · {} scope · {}: {state}{why}", guard.event, guard.scope, show(&guard.file));
        push_wrapped(out, &line, "    ");
    }
    if !probed && !agent.guards.is_empty() {
        let line = format!("probe: not run here; `hook doctor --agent {}` runs the installed handler", agent.agent);
        push_wrapped(out, &line, "    ");
    }
    for probe in &agent.probes {
        let line = format!("probe {} ({} scope): {}", probe.probe.event, probe.scope, clean_line(&probe.probe.outcome));
        push_wrapped(out, &line, "    ");
    }
    for (tool, gates) in [("shell", &agent.gates.shell), ("write", &agent.gates.write)] {
        let run = if gates.run.is_empty() { "none".to_owned() } else { gates.run.join(", ") };
        push_wrapped(out, &format!("gates on {tool}: {}", clean_line(&run)), "    ");
    }
    for finding in &agent.findings {
        let (word, style) = if finding.blocks { ("not live", Style::Red) } else { ("warning", Style::Yellow) };
        let file = finding.file.as_deref().map(|f| format!("{}: ", show(f))).unwrap_or_default();
        let line = format!("{} [{}] {file}{}", painter.paint(style, word), finding.check, clean_line(&finding.message));
        push_wrapped(out, &line, "    ");
        if !finding.fix.is_empty() {
            push_wrapped(out, &format!("fix: {}", clean_line(&finding.fix)), "      ");
        }
    }
}

fn push_wrapped(out: &mut String, line: &str, rest: &str) {
    for piece in wrap(line, "  ", rest) {
        out.push_str(&piece);
        out.push('\n');
    }
}
