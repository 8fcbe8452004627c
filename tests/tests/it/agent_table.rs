//! The agent table is the one place per agent: a tidy check that no other source file keeps a list of an agent's
//! event names, and a walk of every entry through every consumer (event aliases, payload names, readers, the
//! bridge's input and answer, install targets), failing for an entry a consumer forgot.

use std::path::{Path, PathBuf};

use hook_agents::bridge::{answer, parse_input_as};
use hook_agents::install::AgentInstall;
use hook_config::{FileContext, parse_str};
use hook_middleware::{DispatchResult, EventInput};
use hook_tests::paths::repo_root;
use hook_types::{AGENTS, Event, HandlerShape, InstallScope, Limits, Origin, Verdict, WireShape};

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("target") && !path.ends_with("tests") && !path.ends_with("benches") {
                rust_sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Agent event names that only the agent table may list as data: a source line that quotes two or more of one
/// agent's names that have no canonical spelling is a second list of that agent's events.
#[test]
fn no_source_outside_the_agent_table_lists_an_agents_event_names() {
    let table = repo_root().join("crates/hook-types/src/agent.rs");
    let mut sources = Vec::new();
    rust_sources(&repo_root().join("crates"), &mut sources);
    rust_sources(&repo_root().join("xtask/src"), &mut sources);
    // Per agent: its names no other agent spells the same as a canonical name, and all its mapped names, quoted.
    let quoted = |name: &str| format!("\"{name}\"");
    let agents: Vec<(&str, Vec<String>, Vec<String>)> = AGENTS
        .iter()
        .filter(|a| a.bridge)
        .map(|agent| {
            let own = agent.events.iter().filter(|e| Event::parse(e.name).is_err() || e.event.is_none());
            let all = agent.events.iter().map(|e| quoted(e.name)).collect();
            (agent.name, own.map(|e| quoted(e.name)).collect(), all)
        })
        .collect();
    let mut offenders = Vec::new();
    for path in sources.iter().filter(|p| **p != table) {
        let text = std::fs::read_to_string(path).unwrap();
        let mut in_tests = false;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("#[cfg(test)]") {
                in_tests = true;
            }
            let code = line.trim_start();
            if in_tests || code.starts_with("//") {
                continue;
            }
            if !code.contains('"') {
                continue;
            }
            for (agent, own, all) in &agents {
                let listed = own.iter().filter(|n| code.contains(n.as_str())).count();
                let mapped = all.iter().filter(|n| code.contains(n.as_str())).count();
                if listed >= 2 || mapped >= 4 {
                    offenders.push(format!("{}:{}: {agent} ({code})", path.display(), n + 1));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "lists of an agent's events outside the agent table:\n{}", offenders.join("\n"));
}

#[test]
fn every_agent_entry_reaches_every_consumer() {
    let ws = tempfile::tempdir().unwrap();
    for agent in &AGENTS {
        for row in agent.events {
            // Event::parse reads every tool-less name of a mapped event as its canonical event and filters.
            if let (Some(event), None) = (&row.event, row.tool) {
                let parsed = Event::parse(row.name).unwrap_or_else(|e| panic!("{} {}: {e}", agent.name, row.name));
                assert_eq!((&parsed.event, parsed.filters), (event, row.filters), "{} {}", agent.name, row.name);
            }
        }
        // Payloads name every canonical event the agent has in the agent's spelling.
        for event in hook_types::CANONICAL_EVENTS.iter() {
            if agent.events.iter().any(|row| row.event.as_ref() == Some(event)) {
                let name = hook_middleware::protocol::event_name(agent.protocol, &EventInput::new(event.clone()));
                let row = agent.event(&name).unwrap_or_else(|| panic!("{}: {name} is not its own", agent.name));
                assert_eq!(row.event.as_ref(), Some(event), "{} {name}", agent.name);
            }
        }
        // Its tools read back as their canonical tool.
        for (name, canonical) in agent.tools {
            assert_eq!(hook_types::canonical_tool(name).as_deref(), Some(*canonical), "{} {name}", agent.name);
        }
        // A reader loads its own files' events; an agent of one executable per event, from its directory.
        if let (Some(dir), HandlerShape::EventExecutables) = (agent.files.project, agent.handler) {
            let event = agent.install_events().next().unwrap();
            std::fs::create_dir_all(ws.path().join(dir)).unwrap();
            std::fs::write(ws.path().join(dir).join(event), "#!/bin/sh\nexit 0\n").unwrap();
            let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
            let load = hook_config::load_file(&ws.path().join(dir), agent.protocol, &cx);
            assert_eq!(load.hooks.len(), 1, "{} reader: {:?}", agent.name, load.issues);
            assert_eq!(Some(&load.hooks[0].event), agent.event(event).unwrap().event.as_ref(), "{}", agent.name);
        } else if let Some(file) = agent.files.project.filter(|_| agent.handler != HandlerShape::NotInstallable) {
            let event = agent.install_events().next().unwrap();
            let text = match agent.handler {
                HandlerShape::Flat => format!(r#"{{"version":1,"hooks":{{"{event}":[{{"command":"true"}}]}}}}"#),
                HandlerShape::Shells => {
                    format!(r#"{{"version":1,"hooks":{{"{event}":[{{"type":"command","bash":"true"}}]}}}}"#)
                }
                _ => format!(r#"{{"hooks":{{"{event}":[{{"hooks":[{{"type":"command","command":"true"}}]}}]}}}}"#),
            };
            let cx = FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None };
            let load = parse_str(&text, &ws.path().join(file), agent.protocol, &cx);
            assert_eq!(load.hooks.len(), 1, "{} reader: {:?}", agent.name, load.issues);
            assert_eq!(Some(&load.hooks[0].event), agent.event(event).unwrap().event.as_ref(), "{}", agent.name);
        }
        if !agent.bridge {
            continue;
        }
        // The bridge reads each of its events and answers a deny on its gate in its own form.
        // The field naming the event: Cline's `hookName` holds its wire name (`tool_call` for `PreToolUse`).
        let named = |name: &str| match agent.wire {
            WireShape::Cline => {
                format!(r#""hookName":"{}""#, agent.event(name).and_then(|r| r.wire_name).unwrap_or(name))
            }
            _ => format!(r#""hook_event_name":"{name}""#),
        };
        // The event as the bridge's command line names it (`--event`), for an agent whose input does not.
        let event_arg = |name: &'static str| (agent.wire == WireShape::Copilot).then_some(name);
        for name in agent.install_events() {
            let input = format!(r#"{{{},"cwd":"/ws","session_id":"s"}}"#, named(name));
            let read = parse_input_as(agent.protocol, event_arg(name), input.as_bytes())
                .unwrap_or_else(|e| panic!("{} {name}: {e}", agent.name));
            assert!(!read.input.event.is_foreign(), "{} {name}", agent.name);
        }
        let gate = agent.event_name(&Event::PreTool, false, false, Some("shell")).unwrap();
        let input = format!(r#"{{{},"cwd":"/ws","tool_name":"x","tool_input":{{}},"command":"ls"}}"#, named(gate));
        let read = parse_input_as(agent.protocol, event_arg(gate), input.as_bytes()).unwrap();
        let mut denied = DispatchResult::nothing(&Event::PreTool);
        denied.verdict = Verdict::Deny;
        denied.reason = Some("no".into());
        let out = answer(&read, &denied);
        let cancels = out.stdout.contains(r#""cancel":true"#);
        assert!(out.exit_code == 2 || out.stdout.contains("deny") || cancels, "{}: {out:?}", agent.name);
        // Install has a file to write for the project scope and a handler to write into it.
        let layout = hook_config::Layout::new(ws.path()).with_home(Some(ws.path().join("home")));
        assert!(agent.protocol.config_file(InstallScope::Project, &layout).is_some(), "{}", agent.name);
        let entry = agent.protocol.bridge_entry_for(gate, "hook bridge", &Limits::default());
        assert!(entry.to_string().contains("hook bridge"), "{}", agent.name);
        let reread = parse_str(
            &format!(r#"{{"version":1,"hooks":{{"{gate}":[{entry}]}}}}"#),
            &ws.path().join("x.json"),
            agent.protocol,
            &FileContext { origin: Origin::Project, workspace: ws.path(), root: ws.path(), source_id: None },
        );
        if agent.handler == HandlerShape::Shells {
            // The handler install writes is one its own reader takes, with the event on its command line.
            assert_eq!(reread.hooks.len(), 1, "{}: {:?}", agent.name, reread.issues);
            assert!(entry.to_string().contains(&format!("--event {gate}")), "{}: {entry}", agent.name);
        }
    }
}
