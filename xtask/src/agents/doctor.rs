//! `hook doctor`'s verdict against what the agent then does, run in the environment the agent starts with (its
//! command's variables: Gemini CLI's `GEMINI_CLI_TRUST_WORKSPACE`, Copilot's prompt-mode opt-in, Codex's home):
//!
//! - `doctor_live`: after install and trust, doctor says every guard is live (exit 0), and the native shell gate
//!   fires: the tool does not run.
//! - `doctor_off`: one of the agent's own off switches from its table entry, in the workspace's file (GitHub Copilot
//!   CLI: `disableAllHooks: true` in `.github/copilot/settings.json`): doctor names it and exits 1, and the agent
//!   indeed runs the tool without calling the bridge.

use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::agent::{Approver, Run};
use super::session::{Checks, Ctx};

/// The gate both scenarios load: it leaves a mark when it runs, and denies. The mark goes to `$HOME`: a file under
/// the workspace that the command names is part of the hook's fingerprint, and the doctor's probe runs the gate too.
const GATE: &str = "  - id: gate-shell\n    on: pre_tool\n    tools: [shell]\n    kind: command\n    \
                    shell: \"touch ${HOME:?}/GATE-RAN; echo 'DENY-5120 no shell commands here' >&2; exit 2\"\n";

/// Whether the gate ran since the mark was last cleared.
fn gate_ran(ctx: &Ctx<'_>) -> bool {
    ctx.sandbox.home.join("GATE-RAN").exists()
}

const UI: Run = Run { approver: Approver::Preapproved, ui: true };

/// Doctor says live, and the gate fires.
pub fn doctor_live(ctx: &Ctx<'_>) -> Result<Checks> {
    setup(ctx)?;
    let (code, report) = doctor(ctx)?;
    let session = ctx.run(super::scenarios::tool_then_done(), UI)?;
    let mut checks = Checks::default();
    checks.expect(code == Some(0) && report["live"] == true, "doctor: every guard live, exit 0", || {
        format!("exit {code:?}, findings {}", report["agents"][0]["findings"])
    });
    checks.expect(gate_ran(ctx), "the gate to fire, as doctor said", || "it did not".into());
    checks.tool_blocked(ctx, &session);
    Ok(checks)
}

/// One off switch set: doctor names it and says not live, and the agent runs the tool without the gate.
pub fn doctor_off(ctx: &Ctx<'_>) -> Result<Checks> {
    setup(ctx)?;
    let table = hook_types::Agent::parse(ctx.agent.name()).context("no table entry")?;
    let (switch, path) = table
        .switches
        .iter()
        .find_map(|s| {
            s.files.iter().find_map(|f| {
                matches!(f, hook_types::AgentPath::Workspace(p) if !p.ends_with("*.json")).then(|| (s, f.relative()))
            })
        })
        .context("no switch in a workspace file")?;
    let off = match switch.off_when {
        hook_types::OffWhen::True => json!(true),
        hook_types::OffWhen::False => json!(false),
        hook_types::OffWhen::ListsBridge => json!(["hook-bridge"]),
    };
    set_key(&ctx.sandbox.ws.join(path), switch.key, off)?;
    let (code, report) = doctor(ctx)?;
    let session = ctx.run(super::scenarios::tool_then_done(), UI)?;
    let mut checks = Checks::default();
    let named = report["agents"][0]["findings"].as_array().into_iter().flatten().any(|f| f["check"] == switch.key);
    checks.expect(
        code == Some(1) && report["live"] == false && named,
        &format!("doctor: `{}` found, exit 1", switch.key),
        || format!("exit {code:?}, findings {}", report["agents"][0]["findings"]),
    );
    checks.expect(!gate_ran(ctx), "the gate never to run, as doctor said", || "it ran".into());
    checks.tool_ran(ctx, &session);
    Ok(checks)
}

fn setup(ctx: &Ctx<'_>) -> Result<()> {
    ctx.native_hooks(GATE)?;
    ctx.install(false)?;
    ctx.trust_all()
}

/// `hook doctor --agent <agent> --headless --json` with the variables the agent's own command sets.
fn doctor(ctx: &Ctx<'_>) -> Result<(Option<i32>, Value)> {
    let agent_command = ctx.agent.command(ctx.installed, &ctx.sandbox, 1, "", UI);
    let mut command = ctx.sandbox.command(ctx.sandbox.bin.join("hook"));
    for (name, value) in agent_command.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command.args(["--workspace".as_ref(), ctx.sandbox.ws.as_os_str()]);
    command.args(["doctor", "--agent", ctx.agent.name(), "--headless", "--json"]);
    let output = command.output().context("cannot run hook doctor")?;
    // The probe ran the gate: only the agent's own call counts from here.
    let _ = std::fs::remove_file(ctx.sandbox.home.join("GATE-RAN"));
    std::fs::write(ctx.sandbox.root.join("doctor.json"), &output.stdout)?;
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    Ok((output.status.code(), report))
}

/// Sets the dotted `key` to `value` in the JSON or TOML file `path`, keeping the rest.
fn set_key(path: &std::path::Path, key: &str, value: Value) -> Result<()> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let toml = path.extension().is_some_and(|e| e == "toml");
    let mut doc: Value = match (toml, text.trim().is_empty()) {
        (_, true) => json!({}),
        (true, false) => toml::from_str(&text)?,
        (false, false) => serde_json::from_str(&text)?,
    };
    let mut at = &mut doc;
    let parts: Vec<&str> = key.split('.').collect();
    for part in &parts[..parts.len() - 1] {
        at = at.as_object_mut().context("not an object")?.entry(*part).or_insert(json!({}));
    }
    at.as_object_mut().context("not an object")?.insert(parts[parts.len() - 1].to_owned(), value);
    std::fs::create_dir_all(path.parent().context("no parent")?)?;
    let text = if toml { toml::to_string(&doc)? } else { serde_json::to_string_pretty(&doc)? };
    std::fs::write(path, text)?;
    Ok(())
}
