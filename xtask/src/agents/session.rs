//! One scenario's context: its sandbox, the agent, the engine commands a scenario runs (`hook install`, `hook
//! trust`, writing `.hooks/hooks.yaml`), and [`Ctx::run`], which runs the agent once against a fresh model server
//! and keeps what happened; and [`Checks`], the expectations a scenario collects.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::agent::{Agent, Run};
use super::npm::Installed;
use super::process::{self, Finished, Sandbox};
use super::server::{Bounds, Logged, Server, Step};

/// The prompt of every run: the model server's script decides what happens.
pub const PROMPT: &str = "Follow the scripted plan.";

/// The file the scripted shell step creates: the tool ran if and only if it exists.
pub const SENTINEL: &str = "SENTINEL";

/// The scripted shell step.
pub fn touch_sentinel() -> Step {
    Step::Shell(format!("touch {SENTINEL}"))
}

/// One scenario's world.
pub struct Ctx<'a> {
    /// The agent under test.
    pub agent: &'a dyn Agent,
    /// Where the agents are installed.
    pub installed: &'a Installed,
    /// The scenario's directories.
    pub sandbox: Sandbox,
    started: Instant,
    budget: Duration,
    runs: std::cell::Cell<usize>,
}

/// What one run of the agent did and what its model saw.
pub struct Session {
    /// The agent process.
    pub finished: Finished,
    /// Every request the model server got.
    pub requests: Vec<Logged>,
    /// The model turns, in order.
    pub turns: Vec<Logged>,
    /// The tools the approver was asked about and had to decide (Claude Code's SDK mode: requests not cancelled;
    /// Codex: its model reviews).
    pub asked: Vec<String>,
}

impl Session {
    /// Whether any model turn's request holds `text`.
    pub fn model_saw(&self, text: &str) -> bool {
        self.turns.iter().any(|t| t.body.contains(text))
    }

    /// A short account for a failed check: turns, exit, and the agent's last words.
    pub fn summary(&self) -> String {
        let code = match (self.finished.timed_out, self.finished.code) {
            (true, _) => "timed out".to_owned(),
            (_, Some(code)) => format!("exit {code}"),
            (_, None) => "killed".to_owned(),
        };
        format!("{} turns of {} requests, {code}", self.turns.len(), self.requests.len())
    }
}

impl<'a> Ctx<'a> {
    /// A fresh sandbox for `scenario` under `runs_dir`, the agent configured in it.
    pub fn new(agent: &'a dyn Agent, installed: &'a Installed, sandbox: Sandbox, budget: Duration) -> Result<Ctx<'a>> {
        agent.configure(&sandbox)?;
        Ok(Ctx { agent, installed, sandbox, started: Instant::now(), budget, runs: std::cell::Cell::new(0) })
    }

    /// Runs the agent once on [`PROMPT`] with the model scripted as `script`, within what is left of the
    /// scenario's time budget; the requests, stdout and stderr are kept in the sandbox as `run-N.*`.
    pub fn run(&self, script: Vec<Step>, run: impl Into<Run>) -> Result<Session> {
        let run = run.into();
        let server = Server::start(self.agent.wire(run.approver), script, Bounds::default())?;
        let command = self.agent.command(self.installed, &self.sandbox, server.port(), PROMPT, run);
        let left = self.budget.saturating_sub(self.started.elapsed()).max(Duration::from_secs(5));
        let (finished, asked) = match self.agent.conversation(&self.sandbox, PROMPT, run) {
            Some(mut conversation) => {
                let finished = process::run(command, left, &conversation.first, Some(&mut *conversation.talk))?;
                let asked = conversation.asked.lock().unwrap_or_else(|e| e.into_inner()).clone();
                (finished, asked.into_iter().map(|(_, tool)| tool).collect())
            }
            None => (process::run(command, left, &[], None)?, Vec::new()),
        };
        let requests = server.requests();
        let turns = server.turns();
        let mut asked = asked;
        asked.extend(self.agent.model_approvals(&requests));
        drop(server);
        let n = self.runs.get() + 1;
        self.runs.set(n);
        self.keep(n, &finished, &requests);
        Ok(Session { finished, requests, turns, asked })
    }

    fn keep(&self, n: usize, finished: &Finished, requests: &[Logged]) {
        let mut log = String::new();
        for r in requests {
            let entry = serde_json::json!({"method": r.method, "path": r.path, "turn": r.turn, "status": r.status,
                "body": serde_json::from_str::<serde_json::Value>(&r.body).unwrap_or(serde_json::Value::String(r.body.clone()))});
            let _ = writeln!(log, "{entry}");
        }
        let root = &self.sandbox.root;
        let _ = std::fs::write(root.join(format!("run-{n}.requests.jsonl")), log);
        let _ = std::fs::write(root.join(format!("run-{n}.stdout")), finished.stdout.join("\n"));
        let _ = std::fs::write(root.join(format!("run-{n}.stderr")), &finished.stderr);
    }

    /// Writes the workspace's native hooks file.
    pub fn native_hooks(&self, hooks_yaml: &str) -> Result<()> {
        self.sandbox.write(".hooks/hooks.yaml", &format!("version: 1\nhooks:\n{hooks_yaml}"))?;
        Ok(())
    }

    /// `hook trust --all --yes`.
    pub fn trust_all(&self) -> Result<()> {
        self.sandbox.hook_ok(&["trust", "--all", "--yes"])?;
        Ok(())
    }

    /// `hook install --agent <agent> --scope project --yes`, then, unless `agent_trust_by_engine`, the agent's
    /// own trust for whatever install left untrusted (so that only the `agent_trust` scenario depends on install
    /// writing it).
    pub fn install(&self, agent_trust_by_engine: bool) -> Result<String> {
        let out = self.sandbox.hook_ok(&["install", "--agent", self.agent.name(), "--scope", "project", "--yes"])?;
        if !agent_trust_by_engine {
            self.agent.trust_project_hooks(&self.sandbox)?;
        }
        Ok(out)
    }

    /// `hook uninstall --agent <agent> --scope project`.
    pub fn uninstall(&self) -> Result<String> {
        self.sandbox.hook_ok(&["uninstall", "--agent", self.agent.name(), "--scope", "project"])
    }
}

/// The expectations of one scenario; it passes when none failed.
#[derive(Debug, Default)]
pub struct Checks {
    failures: Vec<String>,
}

impl Checks {
    /// Records a failure `expected …, saw …` unless `ok`.
    pub fn expect(&mut self, ok: bool, expected: &str, seen: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(format!("expected {expected}, saw {}", seen()));
        }
    }

    /// The tool did not run: the sentinel file is absent.
    pub fn tool_blocked(&mut self, ctx: &Ctx<'_>, session: &Session) {
        self.expect(!ctx.sandbox.exists(SENTINEL), "the shell tool blocked (no sentinel)", || {
            format!("it ran ({})", session.summary())
        });
    }

    /// The tool ran: the sentinel file exists.
    pub fn tool_ran(&mut self, ctx: &Ctx<'_>, session: &Session) {
        self.expect(ctx.sandbox.exists(SENTINEL), "the shell tool to run (sentinel)", || {
            format!("no sentinel ({})", session.summary())
        });
    }

    /// Some model request holds `marker`.
    pub fn model_saw(&mut self, session: &Session, marker: &str, what: &str) {
        self.expect(session.model_saw(marker), &format!("{what} ({marker}) in a model request"), || {
            format!("it in none ({})", session.summary())
        });
    }

    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The failures, one line.
    pub fn detail(&self) -> String {
        self.failures.join("; ")
    }
}
