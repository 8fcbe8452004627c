//! A small agent host that embeds the hook engine, to read and to run: `cargo run -p agent-host`.
//!
//! It plays an agent loop with simulated tool calls (a shell command, a file write, an MCP tool) in a throwaway
//! repository, and does what a real host does: loads the hooks with `hook_config::load`, installs a coded guard of
//! its own, dispatches every event through `hook_middleware::Pipeline`, applies each effect (a block, a rewrite the
//! guards check again, a reminder into the model's context, a continuation with its cap), tells a hook's denial apart
//! from its human's, reports the hooks it skipped as untrusted, writes receipts, and reloads when `hooks.yaml`
//! changes. It prints a transcript of all of it. `docs/embedding.md` walks through the code.

mod host;
mod workspace;

use std::process::ExitCode;

use hook_types::Event;
use serde_json::json;

use host::{Call, Host, Human};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("agent-host: error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let repo = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    workspace::create(repo.path())?;
    let mut host = Host::start(repo.path(), home.path())?;

    host.observe(Event::SessionStart, |input| input.source = Some("startup".into()));
    if host.turn_start("fix the failing test and push") {
        host.tool(Call::new("shell", json!({"command": "sudo rm -rf /var/cache"})), Human::Approves);
        host.tool(Call::new("shell", json!({"command": "cargo test"})).failing("1 failed"), Human::Approves);
        host.tool(Call::new("write", json!({"file_path": ".env", "content": "TOKEN=x"})), Human::Approves);
        host.tool(Call::new("write", json!({"file_path": "src/lib.rs", "content": "fn fixed() {}"})), Human::Approves);
        host.tool(Call::new("shell", json!({"command": "pip install requests"})), Human::Approves);
        host.tool(Call::new("shell", json!({"command": "git push --force"})), Human::Approves);
        host.tool(Call::new("mcp:github:create_issue", json!({"title": "flaky test"})), Human::Refuses);
        host.turn_end();
    }
    host.observe(Event::Compaction, |input| input.trigger = Some("auto".into()));

    host.say("the user edits .hooks/hooks.yaml while the agent runs");
    workspace::add_hook(repo.path())?;
    if host.turn_start("read the docs page for the fix") {
        host.tool(Call::new("web_fetch", json!({"url": "https://example.com/fix"})), Human::Approves);
        host.turn_end();
    }
    host.observe(Event::Notification, |_| {});
    host.observe(Event::SessionEnd, |_| {});
    host.finish()
}
