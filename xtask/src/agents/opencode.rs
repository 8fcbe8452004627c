//! OpenCode and Kilo Code CLI, run offline: their executables (`opencode-linux-x64` of npm `opencode-ai`,
//! `@kilocode/cli-linux-x64` of `@kilocode/cli`; Bun compiled in) in `run` mode with a custom provider on 127.0.0.1
//! (`@ai-sdk/openai-compatible`, which they bundle), given in `OPENCODE_CONFIG_CONTENT` / `KILO_CONFIG_CONTENT`, with
//! the model list's fetch off; Kilo also fetches its own provider list from `KILO_API_URL`, pointed at the model
//! server (which answers 404). Neither needs a sign-in.
//!
//! They run no command hooks: `hook install` writes its plugin (`.opencode/plugins/hook-engine.js`,
//! `.kilo/plugins/hook-engine.js`), so the shared scenarios (which write a settings file of the agent's own hooks) do
//! not apply. Their own scenarios, [`SCENARIOS`], check the same things in their terms: a native `tools: [shell]` gate
//! denies through the plugin with its reason reaching the model, and a turn_start hook's context reaches it
//! (`plugin_deny`); a gate that passes lets the tool run, a post_tool note reaches the model and the user's own plugin
//! beside the bridge's still runs (`plugin_pass`); an untrusted gate is skipped and the model is told for the user
//! (`plugin_untrusted`); install and uninstall give the config directory back byte for byte with the user's plugin
//! kept (`plugin_install`); and the shared cases where the engine cannot answer, and doctor's verdict. Kilo runs
//! every one of them too.
//!
//! At start-up both install their plugin package into every config directory with npm, and wait for it, unless a
//! lock file there lists it: [`Agent::configure`] marks it present in the sandbox's user config directory, as install
//! does in the project's.
//!
//! Wire: each model turn is `POST /v1/chat/completions` with `stream: true`, answered with chat-completion chunks; a
//! title for the session is asked for on the side; the shell tool is `bash` (`{"command", "description"}`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;
use serde_json::json;

use super::agent::{Agent, Approver, Point, Run};
use super::chat::ChatCompletions;
use super::npm::Installed;
use super::process::Sandbox;
use super::scenarios::{Scenario, tool_then_done};
use super::server::{Reply, Route, Step, Wire};
use super::session::{Checks, Ctx};

/// OpenCode or Kilo Code CLI: one plugin interface, two spellings of its names.
pub struct Plugin {
    /// The suite's (and `hook install`'s) name.
    name: &'static str,
    /// The prefix of its environment variables (`OPENCODE`, `KILO`).
    env: &'static str,
    /// Its config directory under `XDG_CONFIG_HOME`, and in a project (with a dot).
    dir: &'static str,
    /// The plugin package it installs into each config directory.
    dependency: &'static str,
    /// The project file `hook install` writes.
    plugin_file: &'static str,
    /// About how long its scenarios take, in seconds.
    seconds: u32,
}

/// OpenCode.
pub const OPENCODE: Plugin = Plugin {
    name: "opencode",
    env: "OPENCODE",
    dir: "opencode",
    dependency: "@opencode-ai/plugin",
    plugin_file: ".opencode/plugins/hook-engine.js",
    seconds: 60,
};

/// Kilo Code CLI.
pub const KILO: Plugin = Plugin {
    name: "kilo",
    env: "KILO",
    dir: "kilo",
    dependency: "@kilocode/plugin",
    plugin_file: ".kilo/plugins/hook-engine.js",
    seconds: 45,
};

/// The model asked for: any name does, the provider being the suite's.
const MODEL: &str = "offline-model";

/// Why neither can be asked to continue: its `session.idle` bus event takes no answer.
const NO_CONTINUATION: &str = "a plugin's handler of session.idle returns nothing the agent reads: it cannot keep the \
                               turn going";

impl Plugin {
    fn program(&self, installed: &Installed) -> PathBuf {
        if self.name == "kilo" { installed.kilo.clone() } else { installed.opencode.clone() }
    }
}

impl Agent for Plugin {
    fn name(&self) -> &'static str {
        self.name
    }

    fn suite_seconds(&self) -> u32 {
        self.seconds
    }

    fn wire(&self, _approver: Approver) -> Box<dyn Wire> {
        Box::new(Titled(ChatCompletions {
            model: MODEL,
            shell_tool: "bash",
            shell_arguments: |command| json!({"command": command, "description": "run it"}),
            side_answer: super::chat::ok,
        }))
    }

    /// The plugin package marked present in the user's config directory, so that the agent does not run npm
    /// install there at start-up (a minute and more, offline).
    fn configure(&self, sandbox: &Sandbox) -> Result<()> {
        let dir = sandbox.config_home().join(self.dir);
        std::fs::create_dir_all(dir.join("node_modules"))?;
        let lock = json!({"lockfileVersion": 3, "packages": {"": {"dependencies": {self.dependency: "*"}}}});
        std::fs::write(dir.join("package-lock.json"), lock.to_string())?;
        Ok(())
    }

    fn command(&self, installed: &Installed, sandbox: &Sandbox, port: u16, prompt: &str, _run: Run) -> Command {
        let base = format!("http://127.0.0.1:{port}");
        let config = json!({
            "provider": {"local": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "local",
                "options": {"baseURL": format!("{base}/v1"), "apiKey": "offline"},
                "models": {MODEL: {"name": MODEL, "tool_call": true}},
            }},
            "model": format!("local/{MODEL}"),
        });
        let env = self.env;
        let mut command = sandbox.command(self.program(installed));
        command
            .env(format!("{env}_CONFIG_CONTENT"), config.to_string())
            .env(format!("{env}_DISABLE_MODELS_FETCH"), "true")
            .env(format!("{env}_DISABLE_AUTOUPDATE"), "true")
            .env(format!("{env}_DISABLE_SHARE"), "true")
            .args(["run", prompt]);
        if self.name == "kilo" {
            command.env("KILO_API_URL", &base).env("KILO_TELEMETRY_LEVEL", "off");
        }
        command
    }

    fn measured_by_default(&self) -> bool {
        false
    }

    fn own_scenarios_only(&self) -> bool {
        true
    }

    fn skips(&self, scenario: &str) -> Option<&'static str> {
        if matches!(scenario, "continuation" | "continuation_cap") {
            return Some(NO_CONTINUATION);
        }
        None
    }

    fn event(&self, point: Point) -> Option<&'static str> {
        point.table_name(hook_types::Protocol::Opencode)
    }

    fn shell_matcher(&self) -> &'static str {
        "bash"
    }

    fn settings_file(&self) -> &'static str {
        self.plugin_file
    }
}

/// The chat-completions wire, with the session's title asked for on the side: a streamed request that offers no
/// tools is no turn of the conversation, and gets a title.
struct Titled(ChatCompletions);

impl Wire for Titled {
    fn route(&self, method: &str, path: &str, body: &serde_json::Value) -> Route {
        let offers_tools = body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        if method == "POST" && path.contains("/chat/completions") && body["stream"] == true && !offers_tools {
            return Route::Reply(self.0.turn(&Step::Text("Scripted run".into()), 0));
        }
        self.0.route(method, path, body)
    }

    fn turn(&self, step: &Step, turn: usize) -> Reply {
        self.0.turn(step, turn)
    }
}

/// Their own scenarios (see the module docs).
pub const SCENARIOS: &[Scenario] = &[
    Scenario { name: "plugin_deny", agents: &["opencode", "kilo"], run: deny },
    Scenario { name: "plugin_pass", agents: &["opencode", "kilo"], run: pass },
    Scenario { name: "plugin_untrusted", agents: &["opencode", "kilo"], run: untrusted },
    Scenario { name: "plugin_install", agents: &["opencode", "kilo"], run: install },
    // The shared cases: the engine cannot answer, and doctor proves the plugin live.
    Scenario { name: "hook_missing", agents: &["opencode", "kilo"], run: super::unanswered::hook_missing },
    Scenario { name: "bridge_killed", agents: &["opencode", "kilo"], run: super::unanswered::bridge_killed },
    Scenario { name: "doctor_live", agents: &["opencode", "kilo"], run: super::doctor::doctor_live },
];

/// A plugin of the user's own beside the bridge's: it leaves a mark in `$HOME` whenever a tool is about to run.
const OWN_PLUGIN: &str = "export const Mine = async () => ({\n  \"tool.execute.before\": async () => {\n    \
                          await Bun.write(`${process.env.HOME}/OWN-PLUGIN-RAN`, \"yes\");\n  },\n});\n";

/// The user's plugin file in the agent's project config directory.
fn own_plugin(ctx: &Ctx<'_>) -> String {
    let plugins = Path::new(ctx.agent.settings_file()).parent().unwrap_or(Path::new("."));
    plugins.join("mine.js").display().to_string()
}

/// A native shell gate denies through the plugin, the reason reaching the model; a turn_start hook's context reaches
/// it too.
fn deny(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
         shell: \"touch ${HOME:?}/GATE-RAN; echo 'DENY-5120 no shell commands here' >&2; exit 2\"\n  \
         - id: remind\n    on: turn_start\n    kind: effect\n    \
         effect: {kind: inject_reminder, message: \"CONTEXT-6021 the branch is frozen\"}\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.home.join("GATE-RAN").exists(), "the native gate to run", || "it did not".into());
    checks.tool_blocked(ctx, &session);
    checks.model_saw(&session, "DENY-5120", "the deny's reason");
    checks.model_saw(&session, "CONTEXT-6021", "the turn_start context");
    Ok(checks)
}

/// A native gate passes: the tool runs, a post_tool note reaches the model, and the user's own plugin still runs.
fn pass(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.sandbox.write(&own_plugin(ctx), OWN_PLUGIN)?;
    ctx.native_hooks(
        "  - id: pass-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
         shell: \"touch ${HOME:?}/PASS-RAN\"\n  \
         - id: note-shell\n    on: post_tool\n    tools: [shell]\n    kind: effect\n    \
         effect: {kind: annotate_tool_result, message: \"NOTE-3388 the build is slow today\"}\n",
    )?;
    ctx.install(false)?;
    ctx.trust_all()?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.expect(ctx.sandbox.home.join("PASS-RAN").exists(), "the native gate to run", || "it did not".into());
    checks.tool_ran(ctx, &session);
    checks.model_saw(&session, "NOTE-3388", "the post_tool note");
    checks.expect(ctx.sandbox.home.join("OWN-PLUGIN-RAN").exists(), "the user's own plugin to run", || {
        "it did not".into()
    });
    Ok(checks)
}

/// An untrusted gate is skipped, and the model is told for the user, naming `hook trust`.
fn untrusted(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.native_hooks(
        "  - id: untrusted-gate\n    on: pre_tool\n    kind: command\n    \
         shell: \"echo 'UNTRUSTED-9090 should not run' >&2; exit 2\"\n",
    )?;
    ctx.install(false)?;
    let session = ctx.run(tool_then_done(), Approver::Preapproved)?;
    let mut checks = Checks::default();
    checks.tool_ran(ctx, &session);
    checks.model_saw(&session, "untrusted-gate", "the skipped guard's notice");
    checks.model_saw(&session, "hook trust", "how to trust it");
    Ok(checks)
}

/// Every entry under the agent's project config directory, with its bytes.
fn tree(ctx: &Ctx<'_>) -> Vec<(String, Vec<u8>)> {
    let first = Path::new(ctx.agent.settings_file()).components().next();
    let root = ctx.sandbox.ws.join(first.map(|c| c.as_os_str()).unwrap_or_default());
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            let bytes = if meta.is_file() { std::fs::read(&path).unwrap_or_default() } else { Vec::new() };
            out.push((path.strip_prefix(&root).unwrap_or(&path).display().to_string(), bytes));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Install writes the plugin beside the user's own and marks its package present; uninstall gives the directory back
/// byte for byte, the user's plugin in it.
fn install(ctx: &Ctx<'_>) -> Result<Checks> {
    ctx.sandbox.write(&own_plugin(ctx), OWN_PLUGIN)?;
    let before = tree(ctx);
    ctx.install(false)?;
    let during = tree(ctx);
    let mut checks = Checks::default();
    let names: Vec<&str> = during.iter().map(|(name, _)| name.as_str()).collect();
    for expected in ["plugins/hook-engine.js", "plugins/mine.js", "package-lock.json", "node_modules"] {
        checks.expect(names.contains(&expected), &format!("`{expected}` after install"), || names.join(", "));
    }
    ctx.uninstall()?;
    let after = tree(ctx);
    checks.expect(after == before, "the config directory restored byte for byte", || {
        format!("{} entries where there were {}", after.len(), before.len())
    });
    Ok(checks)
}
