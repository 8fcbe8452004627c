//! Installing for Codex keeps its guards working: Codex runs only the hooks its own store trusts (by position), so
//! install records the bridge entries it writes as trusted there — the one in the moved hook's place included — and
//! uninstall puts Codex's store back byte for byte.

use crate::common;

use common::{Env, read_json};
use hook_agents::install::codex_hook_hash;
use serde_json::{Value, json};

#[test]
fn an_install_for_codex_trusts_its_bridge_entries_in_codexs_store_and_uninstall_takes_them_back() {
    let env = Env::new("empty");
    let guard = json!({"type": "command", "command": "./guard.sh"});
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [guard.clone()]}]}});
    env.write(".codex/hooks.json", &serde_json::to_string_pretty(&hooks).unwrap());
    env.write("guard.sh", "#!/bin/sh\nexit 0\n");
    let hooks_file = env.ws.join(".codex/hooks.json");
    let state_file = env.home.join(".codex/config.toml");
    std::fs::create_dir_all(state_file.parent().unwrap()).unwrap();
    let original = format!(
        "model = \"gpt\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"{}\"\n",
        env.ws.display(),
        hooks_file.display(),
        codex_hook_hash("pre_tool_use", Some("Bash"), &guard)
    );
    std::fs::write(&state_file, &original).unwrap();

    let out = env.hook(&["install", "--agent", "codex", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.contains("Codex's own store"), "{out:#?}");

    let installed = read_json(&hooks_file);
    let state: toml::Table = toml::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
    let trusted =
        |key: &str| state["hooks"]["state"].get(key).and_then(|e| e["trusted_hash"].as_str()).map(str::to_owned);
    let mut bridges = 0;
    for (event, groups) in installed["hooks"].as_object().unwrap() {
        let label = match event.as_str() {
            "PreToolUse" => "pre_tool_use",
            "PostToolUse" => "post_tool_use",
            "SessionStart" => "session_start",
            "UserPromptSubmit" => "user_prompt_submit",
            "PermissionRequest" => "permission_request",
            "Stop" => "stop",
            other => panic!("unexpected event {other}"),
        };
        for (g, group) in groups.as_array().unwrap().iter().enumerate() {
            for (h, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                assert!(handler["command"].as_str().unwrap().contains("bridge"), "{handler}");
                let key = format!("{}:{label}:{g}:{h}", hooks_file.display());
                let expected = codex_hook_hash(label, group["matcher"].as_str(), handler);
                assert_eq!(trusted(&key), Some(expected), "{key}");
                bridges += 1;
            }
        }
    }
    assert_eq!(bridges, 6, "{installed:#}");
    // The rest of Codex's config is kept as it was.
    let text = std::fs::read_to_string(&state_file).unwrap();
    assert!(text.starts_with("model = \"gpt\"\n"), "{text}");

    let out = env.hook(&["uninstall", "--agent", "codex"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(std::fs::read_to_string(&state_file).unwrap(), original);
    assert_eq!(read_json(&hooks_file), hooks as Value);
}
