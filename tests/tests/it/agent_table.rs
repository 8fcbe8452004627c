//! The agent table is the one place per agent: a tidy check that no other source file keeps a list of an agent's
//! event names, and a walk of every entry through every consumer (event aliases, payload names, readers, the
//! bridge's input and answer, install targets), failing for an entry a consumer forgot.

use std::path::PathBuf;

use hook_agents::bridge::{answer, parse_input_as};
use hook_agents::install::AgentInstall;
use hook_config::{FileContext, parse_str};
use hook_middleware::{DispatchResult, EventInput};
use hook_tests::paths::repo_root;
use hook_tests::source::{Token, shipped_rust_files, shipped_tokens, words};
use hook_types::{AGENTS, Event, HandlerShape, InstallScope, Limits, Origin, Verdict, WireShape};

/// The agent table's own directory: each agent's entry, its event and tool names, in a module of its own.
const TABLE: &str = "crates/hook-types/src/agent";

/// The test helpers' crate: it ships nothing (a test server that answers as agents' endpoints do).
const TESTKIT: &str = "crates/hook-testkit";

/// Tokens between two names of one list at most (`("A", Event::X),\n("B", Event::Y)` is 9 apart).
const LIST_GAP: usize = 16;

/// The runs of quoted names in `tokens` that read as one list: names at most [`LIST_GAP`] tokens apart with no `;`
/// between them, however the list is laid out on lines. Each run is the names it holds, in order.
fn name_runs(tokens: &[Token], is_name: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut since = 0;
    for token in tokens {
        match token {
            Token::Str(text) if is_name(text) => {
                if since > LIST_GAP {
                    runs.extend((current.len() > 1).then(|| std::mem::take(&mut current)));
                    current.clear();
                }
                current.push(text.clone());
                since = 0;
            }
            Token::Punct(';') => {
                runs.extend((current.len() > 1).then(|| std::mem::take(&mut current)));
                current.clear();
                since = 0;
            }
            _ => since += 1,
        }
    }
    runs.extend((current.len() > 1).then_some(current));
    runs
}

/// Per agent: its names no other agent spells the same as a canonical name, and all its mapped names.
fn agent_names() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    AGENTS
        .iter()
        .filter(|a| a.bridge)
        .map(|agent| {
            let own = agent.events.iter().filter(|e| Event::parse(e.name).is_err() || e.event.is_none());
            (agent.name, own.map(|e| e.name).collect(), agent.events.iter().map(|e| e.name).collect())
        })
        .collect()
}

/// The second lists of an agent's events in `text`: a list (see [`name_runs`]) holding two or more of one agent's
/// own names, or four or more of its mapped names.
fn event_lists(text: &str, agents: &[(&'static str, Vec<&'static str>, Vec<&'static str>)]) -> Vec<String> {
    let tokens = shipped_tokens(text);
    let mut found = Vec::new();
    for (agent, own, all) in agents {
        for run in name_runs(&tokens, |s| all.contains(&s)) {
            let listed = run.iter().filter(|n| own.contains(&n.as_str())).count();
            if listed >= 2 || run.len() >= 4 {
                found.push(format!("{agent}: {}", run.join(", ")));
            }
        }
    }
    found
}

/// Agent event names that only the agent table may list as data: a list in shipped code (tests and comments
/// aside) that quotes two or more of one agent's names that have no canonical spelling, or four of its names, is a
/// second list of that agent's events. The real-agent suite (`xtask/src/agents`) is a test of the table against the
/// agents themselves: it spells their names on its own.
#[test]
fn no_source_outside_the_agent_table_lists_an_agents_event_names() {
    let agents = agent_names();
    let mut offenders = Vec::new();
    for dir in ["crates", "xtask/src/bench", "xtask/src/main.rs"] {
        for path in shipped_rust_files(&repo_root().join(dir)) {
            if path.starts_with(repo_root().join(TABLE)) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            offenders.extend(event_lists(&text, &agents).into_iter().map(|l| format!("{}: {l}", path.display())));
        }
    }
    assert!(offenders.is_empty(), "lists of an agent's events outside the agent table:\n{}", offenders.join("\n"));
}

/// The tidy check reads tokens, not lines: a list written one name per line, or split by a comment, is still a
/// list; names far apart in one function are not.
#[test]
fn the_tidy_check_finds_a_list_however_it_is_laid_out() {
    let agents = agent_names();
    let one_per_line = "const MINE: &[&str] = &[\n    \"BeforeModel\",\n    // the other\n    \"AfterModel\",\n];\n";
    assert_eq!(event_lists(one_per_line, &agents), ["Gemini CLI: BeforeModel, AfterModel"]);
    let arms = "match name {\n    \"BeforeModel\" => 1,\n    \"AfterModel\" => 2,\n    _ => 0,\n}\n";
    assert_eq!(event_lists(arms, &agents), ["Gemini CLI: BeforeModel, AfterModel"]);
    let apart = "fn a() { f(\"BeforeModel\"); }\nfn b() { g(\"AfterModel\"); }\n";
    assert!(event_lists(apart, &agents).is_empty());
    let in_a_comment = "// \"BeforeModel\", \"AfterModel\"\nconst X: u8 = 1;\n";
    assert!(event_lists(in_a_comment, &agents).is_empty());
}

/// Per file of shipped code (comments and tests aside), the agents of `agents` it names in an identifier
/// (`QwenRules`, `qwen_words`) or a string literal.
fn files_naming(agents: &[&str]) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    for dir in ["crates", "xtask/src/agents"] {
        for path in shipped_rust_files(&repo_root().join(dir)) {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut named: Vec<String> = Vec::new();
            for token in shipped_tokens(&text) {
                let words = match token {
                    Token::Ident(ident) => words(&ident),
                    Token::Str(text) => {
                        text.to_lowercase().split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_owned).collect()
                    }
                    _ => continue,
                };
                named.extend(words.into_iter().filter(|w| agents.contains(&w.as_str())));
            }
            named.sort();
            named.dedup();
            if !named.is_empty() {
                out.push((path.strip_prefix(repo_root()).unwrap().to_path_buf(), named));
            }
        }
    }
    out
}

/// One agent in one place: the files of shipped code that name each agent, outside the agent table, stay within
/// a budget. An agent is its table entry plus, where its shape is new, modules of its own; a shared file that
/// names an agent is where the next agent will need an edit too. Run with `--nocapture` to see the files.
#[test]
fn each_agent_is_named_in_few_files_outside_its_table_entry() {
    // Shared files naming the agent, at most: outside crates/hook-types/src/agent/ and the agent's own modules, in
    // the crates and the real-agent suite (xtask/src/agents; the bench, which runs clio-coder's loader beside ours,
    // is not agent support). Before the table was one module per agent, and before the output reader's per-agent
    // branches became rule fields and modules, the same count was 22, 14, 13, 8, 12, 6, 8, 10, 3, 7.
    const BUDGET: &[(&str, usize)] = &[
        ("claude", 21),
        ("codex", 12),
        ("gemini", 11),
        ("cursor", 7),
        ("copilot", 11),
        ("qwen", 5),
        ("droid", 6),
        ("cline", 9),
        ("mecha", 2),
        ("clio", 6),
        ("opencode", 3),
        ("kilo", 3),
        ("crush", 7),
        ("auggie", 5),
    ];
    let agents: Vec<&str> = BUDGET.iter().map(|(agent, _)| *agent).collect();
    let naming: Vec<(PathBuf, Vec<String>)> = files_naming(&agents)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(TABLE) && !path.starts_with(TESTKIT))
        .collect();
    let mut over = Vec::new();
    for (agent, budget) in BUDGET {
        // A module of the agent's own (`formats/qwen.rs`, `protocol/cursor.rs`) is where its shape is new; a shared
        // file that names it is where the next agent needs an edit too.
        let own = |path: &PathBuf| path.file_stem().is_some_and(|stem| stem == *agent);
        let files: Vec<&PathBuf> = naming
            .iter()
            .filter(|(path, named)| !own(path) && named.iter().any(|n| n == agent))
            .map(|(p, _)| p)
            .collect();
        println!("{agent}: {} files", files.len());
        for file in &files {
            println!("    {}", file.display());
        }
        if files.len() > *budget {
            over.push(format!("{agent}: {} files, budget {budget}", files.len()));
        }
    }
    assert!(over.is_empty(), "an agent is named in more places than before:\n{}", over.join("\n"));
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
        } else if let Some(file) = agent
            .files
            .project
            .filter(|_| !matches!(agent.handler, HandlerShape::NotInstallable | HandlerShape::Plugin { .. }))
        {
            let event = agent.install_events().next().unwrap();
            let text = match agent.handler {
                HandlerShape::Flat { versioned: true } => {
                    format!(r#"{{"version":1,"hooks":{{"{event}":[{{"command":"true"}}]}}}}"#)
                }
                HandlerShape::Flat { versioned: false } => {
                    format!(r#"{{"hooks":{{"{event}":[{{"command":"true"}}]}}}}"#)
                }
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
            // Crush names it `event`.
            WireShape::Crush => format!(r#""event":"{name}""#),
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
