//! The host: one pipeline for the session, and what it does with each dispatch's answer.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hook_config::{Config, Layout, LoadOptions, TrustStatus, TrustStore, load};
use hook_middleware::receipts::{FileSink, verify};
use hook_middleware::{DispatchResult, EvalError, Evaluation, EventInput, Pipeline, Registration};
use hook_types::{Effect, Event, RunStatus, Verdict};
use serde_json::Value;

/// The hook the host's user has not trusted: it matches, is reported, and never runs.
const NEVER_TRUSTED: &str = "repo.upload-transcript";

/// A simulated tool call of the model.
pub struct Call {
    tool: &'static str,
    input: Value,
    failure: Option<&'static str>,
}

impl Call {
    /// A call of `tool` (its canonical name) with `input`.
    pub fn new(tool: &'static str, input: Value) -> Call {
        Call { tool, input, failure: None }
    }

    /// The tool will fail with this output.
    pub fn failing(mut self, output: &'static str) -> Call {
        self.failure = Some(output);
        self
    }
}

/// What the simulated human answers when the host asks.
#[derive(Clone, Copy)]
pub enum Human {
    /// Says yes.
    Approves,
    /// Says no.
    Refuses,
}

/// The agent host: its pipeline, the model's context, and where it watches for changes.
pub struct Host {
    runtime: tokio::runtime::Runtime,
    layout: Layout,
    pipeline: Pipeline,
    hooks_file: PathBuf,
    seen: String,
    receipts: PathBuf,
    context: Vec<String>,
    protected: Vec<(String, String)>,
    /// Skipped hooks already reported in the transcript (each receipt still records every skip).
    reported: Vec<String>,
    session: &'static str,
}

impl Host {
    /// Loads the repository's hooks, trusts all but one of them (as its user would with `hook trust`), and builds
    /// the pipeline: the host's guard first, then the loaded hooks, with a receipt log.
    pub fn start(repo: &Path, home: &Path) -> Result<Host, Box<dyn std::error::Error>> {
        let layout = Layout::new(repo)
            .with_config_home(home.join("config"))
            .with_home(None)
            .with_managed_file(home.join("no-managed-policy.yaml"));
        let config = load(&layout, &LoadOptions::default())?;
        trust_all_but(&layout, &config, NEVER_TRUSTED)?;
        let config = load(&layout, &LoadOptions::default())?;
        let receipts = home.join("state/receipts.jsonl");
        let pipeline = Pipeline::builder()
            .workspace(&config.workspace)
            .fixed(no_sudo_guard())
            .user_hooks(&config)
            .receipt_sink(Arc::new(FileSink::new(&receipts)))
            .build()?;
        let hooks_file = repo.join(".hooks/hooks.yaml");
        let seen = std::fs::read_to_string(&hooks_file)?;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let host = Host {
            runtime,
            layout,
            pipeline,
            hooks_file,
            seen,
            receipts,
            context: Vec::new(),
            protected: Vec::new(),
            reported: Vec::new(),
            session: "s-1",
        };
        host.say(&format!("loaded {} hooks, {} issues", config.hooks.len(), config.issues.len()));
        for hook in &config.hooks {
            let status = match hook.trust {
                TrustStatus::Untrusted | TrustStatus::Modified => "NOT trusted",
                _ => "trusted",
            };
            host.say(&format!("  {:<24} {:<14} {status}", hook.decl.id, hook.decl.event.to_string()));
        }
        host.say("guard host.no-sudo (coded in the host, runs before every hook)");
        Ok(host)
    }

    /// A line of the transcript about the host itself.
    pub fn say(&self, line: &str) {
        println!("host: {line}");
    }

    fn dispatch(&mut self, input: EventInput) -> DispatchResult {
        self.reload_if_changed();
        let result = self.runtime.block_on(self.pipeline.dispatch(&input));
        for notice in &result.notices {
            println!("  notice to the user: {notice}");
        }
        for diagnostic in &result.diagnostics {
            println!("  diagnostic: {diagnostic}");
        }
        for run in result.runs.iter().filter(|r| r.status == RunStatus::Untrusted) {
            if !self.reported.contains(&run.hook_id) {
                println!("  skipped {} ({}): not trusted, so it did not run", run.hook_id, run.status_name());
                self.reported.push(run.hook_id.clone());
            }
        }
        result
    }

    /// The hot reload: a host that stays up re-reads the hooks when their file changes, and swaps them in as one
    /// unit; dispatches already running keep the table they started with.
    fn reload_if_changed(&mut self) {
        let Ok(now) = std::fs::read_to_string(&self.hooks_file) else { return };
        if now == self.seen {
            return;
        }
        self.seen = now;
        match load(&self.layout, &LoadOptions::default()) {
            Ok(config) => {
                let reload = self.pipeline.reload(&config);
                self.say(&format!(
                    "hooks.yaml changed: reloaded {} hooks, generation {}",
                    reload.hooks, reload.generation
                ));
            }
            Err(err) => self.say(&format!("hooks.yaml changed but cannot be loaded: {err}")),
        }
    }

    /// An observer event: dispatched, its reminders kept for the model.
    pub fn observe(&mut self, event: Event, fill: impl FnOnce(&mut EventInput)) {
        let mut input = EventInput::new(event.clone()).with_session(self.session);
        fill(&mut input);
        println!("[{event}]");
        let result = self.dispatch(input);
        self.apply_context(&result);
        println!("  {} ({} hooks ran)", result.verdict.as_str(), ran(&result));
    }

    /// A user prompt. Returns whether the turn goes ahead.
    pub fn turn_start(&mut self, prompt: &str) -> bool {
        println!("[turn_start] user: {prompt}");
        let mut input = EventInput::new(Event::TurnStart).with_session(self.session);
        input.prompt = Some(prompt.into());
        let result = self.dispatch(input);
        if result.denied() {
            println!("  prompt dropped: {}", result.reason.as_deref().unwrap_or("a hook blocked it"));
            return false;
        }
        self.protected.clear();
        self.apply_context(&result);
        true
    }

    /// One tool call: pre_tool, then the human where the verdict leaves it to them (permission_request first),
    /// the call, post_tool.
    pub fn tool(&mut self, call: Call, human: Human) {
        println!("[pre_tool] model calls {} {}", call.tool, call.input);
        let input = EventInput::new(Event::PreTool).with_tool(call.tool, call.input.clone()).with_session(self.session);
        let result = self.dispatch(input);
        let mut tool_input = call.input.clone();
        for effect in &result.effects {
            match effect {
                Effect::RewriteToolInput { input } => {
                    tool_input = Value::Object(input.clone());
                    let rechecks = result.runs.iter().filter(|r| r.origin.is_none()).count();
                    println!(
                        "  input rewritten by a hook to {tool_input}; the guard checked it again ({rechecks} runs)"
                    );
                }
                Effect::ProtectPath { path, reason } => self.protected.push((path.clone(), reason.clone())),
                _ => {}
            }
        }
        match result.verdict {
            Verdict::Deny => return println!("  DENIED by {}: {}", denier(&result), reason(&result)),
            Verdict::Ask => {
                println!("  a hook wants a human to decide: {}", reason(&result));
                if !self.ask_human(call.tool, &tool_input, human) {
                    return;
                }
            }
            Verdict::Allow => println!("  allowed by a hook, no human asked"),
            Verdict::Pass | Verdict::None => {}
        }
        if let Some((path, why)) = self.protected_target(&tool_input) {
            return println!("  REFUSED by the host: {path} is protected ({why})");
        }
        self.run_tool(call, tool_input);
    }

    fn ask_human(&mut self, tool: &str, input: &Value, human: Human) -> bool {
        let request =
            EventInput::new(Event::PermissionRequest).with_tool(tool, input.clone()).with_session(self.session);
        let decided = self.dispatch(request);
        match decided.verdict {
            Verdict::Allow => return true,
            Verdict::Deny => {
                println!("  DENIED by {} at the permission request: {}", denier(&decided), reason(&decided));
                return false;
            }
            _ => {}
        }
        match human {
            Human::Approves => {
                println!("  the human approves");
                true
            }
            Human::Refuses => {
                println!("  REFUSED by the human (not by a hook)");
                false
            }
        }
    }

    fn protected_target(&self, input: &Value) -> Option<(String, String)> {
        let target = input.get("file_path").and_then(Value::as_str)?;
        self.protected.iter().find(|(path, _)| path == target).cloned()
    }

    fn run_tool(&mut self, call: Call, input: Value) {
        let output = call.failure.unwrap_or("ok");
        println!("  ran {} {input} -> {output}", call.tool);
        let mut after = EventInput::new(Event::PostTool).with_tool(call.tool, input).with_session(self.session);
        after.is_error = call.failure.is_some();
        after.content = Some(output.into());
        let result = self.dispatch(after);
        for effect in &result.effects {
            if let Effect::AnnotateToolResult { message, .. } = effect {
                println!("  the model sees the result with a note: {message}");
            }
        }
    }

    /// The model's final message: turn_end, again and again while a hook asks to continue and the cap allows.
    pub fn turn_end(&mut self) {
        let mut continuing = false;
        for _ in 0..10 {
            println!("[turn_end] model: done");
            let mut input = EventInput::new(Event::TurnEnd).with_session(self.session);
            input.stop_hook_active = continuing;
            let result = self.dispatch(input);
            let next = result.effects.iter().find_map(|e| match e {
                Effect::RequestContinuation { message } => Some(message.clone()),
                _ => None,
            });
            match next {
                Some(message) => {
                    println!("  a hook asks to continue: {message}");
                    self.context.push(message);
                    continuing = true;
                }
                None => {
                    println!("  the turn ends");
                    return;
                }
            }
        }
    }

    fn apply_context(&mut self, result: &DispatchResult) {
        for effect in &result.effects {
            if let Effect::InjectReminder { message, .. } = effect {
                println!("  into the model's context: {message}");
                self.context.push(message.clone());
            }
        }
    }

    /// The end of the session: the receipt log and its check.
    pub fn finish(self) -> Result<(), Box<dyn std::error::Error>> {
        let lines = std::fs::read_to_string(&self.receipts)?.lines().count();
        let report = verify(&self.receipts, None)?;
        let intact = if report.is_intact() { "intact" } else { "BROKEN" };
        self.say(&format!("{lines} receipts written, hash chain {intact}"));
        self.say(&format!("the model's context got {} reminders", self.context.len()));
        Ok(())
    }
}

/// The host's own guard, coded: no `sudo`, whatever the hooks say. It runs before every user hook, and again on an
/// input a hook rewrote.
fn no_sudo_guard() -> Registration {
    Registration::in_process("host.no-sudo", [Event::PreTool], |input: &EventInput, _: &[Effect]| {
        let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or_default();
        Ok::<_, EvalError>(if command.split_whitespace().any(|w| w == "sudo") {
            Evaluation::deny("this host never runs sudo")
        } else {
            Evaluation::pass()
        })
    })
}

/// Records every hook that needs trust but `except`, as its user would with `hook trust ID`.
fn trust_all_but(layout: &Layout, config: &Config, except: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (mut store, issue) = TrustStore::open(layout.trust_store_path());
    if let Some(issue) = issue {
        return Err(issue.to_string().into());
    }
    for hook in config.hooks.iter().filter(|h| h.decl.id != except) {
        if matches!(hook.trust, TrustStatus::Untrusted | TrustStatus::Modified) {
            store.trust_hook(&config.workspace, &hook.decl, hook.fingerprint.as_ref());
        }
    }
    store.save()?;
    Ok(())
}

/// Who denied: the host's guard (a registration has no origin) or a hook of the configuration.
fn denier(result: &DispatchResult) -> String {
    let run = result.runs.iter().find(|r| matches!(r.status, RunStatus::Blocked | RunStatus::Failed));
    match run {
        Some(run) if run.origin.is_none() => format!("the host's guard {}", run.hook_id),
        Some(run) => format!("hook {} ({})", run.hook_id, run.origin.map(|o| o.as_str()).unwrap_or("?")),
        None => "a hook".into(),
    }
}

fn reason(result: &DispatchResult) -> &str {
    result.reason.as_deref().unwrap_or("no reason given")
}

fn ran(result: &DispatchResult) -> usize {
    result.runs.iter().filter(|r| !matches!(r.status, RunStatus::Untrusted | RunStatus::Skipped)).count()
}

/// The run status's wire name.
trait StatusName {
    fn status_name(&self) -> String;
}

impl StatusName for hook_types::RunSummary {
    fn status_name(&self) -> String {
        serde_json::to_value(self.status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    }
}
