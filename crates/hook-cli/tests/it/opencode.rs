//! OpenCode and Kilo Code CLI end to end through the real `hook` binary (docs/agents.md#opencode-and-kilo-code-cli):
//! `hook install` writes the plugin this crate ships beside the user's own plugins and marks its package present;
//! `hook uninstall` gives the config directory back byte for byte; the bridge reads the plugin's Claude-shaped input
//! under OpenCode's names; and the plugin's own tests (`node --test`) run with the real bridge behind it.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{Env, HOOK};
use serde_json::json;

/// Every file under `dir` with its bytes, and every directory (as `None`).
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            if path.is_dir() {
                out.insert(name, None);
                stack.push(path);
            } else {
                out.insert(name, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

const OWN_PLUGIN: &str = "export const Mine = async () => ({})\n";

#[test]
fn install_writes_the_plugin_beside_the_users_and_uninstall_restores_every_byte() {
    for (agent, dir, dependency) in
        [("opencode", ".opencode", "@opencode-ai/plugin"), ("kilo", ".kilo", "@kilocode/plugin")]
    {
        let env = Env::new("empty");
        env.write(&format!("{dir}/plugins/mine.js"), OWN_PLUGIN);
        let before = tree(&env.ws);
        let out = env.hook(&["install", "--agent", agent, "--scope", "project", "--yes"]);
        assert_eq!(out.code, 0, "{out:#?}");
        let plugin = std::fs::read_to_string(env.ws.join(dir).join("plugins/hook-engine.js")).unwrap();
        assert!(plugin.contains(&format!("\"agent\":\"{agent}\"")), "{plugin}");
        assert!(plugin.contains(&format!("bridge --protocol {agent}")), "{plugin}");
        let lock: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(env.ws.join(dir).join("package-lock.json")).unwrap())
                .unwrap();
        assert_eq!(lock["packages"][""]["dependencies"][dependency], "*");
        assert!(env.ws.join(dir).join("node_modules").is_dir());
        assert_eq!(std::fs::read_to_string(env.ws.join(dir).join("plugins/mine.js")).unwrap(), OWN_PLUGIN);
        let again = env.hook(&["install", "--agent", agent, "--scope", "project", "--yes"]);
        assert_eq!(again.code, 0, "a second install changes nothing: {again:#?}");
        let out = env.hook(&["uninstall", "--agent", agent, "--scope", "project"]);
        assert_eq!(out.code, 0, "{out:#?}");
        assert_eq!(tree(&env.ws), before, "{agent}: the workspace restored byte for byte");
    }
}

#[test]
fn install_leaves_a_users_package_files_alone_and_says_how_to_add_the_package() {
    let env = Env::new("empty");
    env.write(".opencode/package.json", "{\"dependencies\": {\"left-pad\": \"1.3.0\"}}\n");
    let before = tree(&env.ws);
    let out = env.hook(&["install", "--agent", "opencode", "--scope", "project", "--yes"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("npm install @opencode-ai/plugin"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was changed"), "{}", out.stderr);
    assert_eq!(tree(&env.ws), before);
}

#[test]
fn install_refuses_to_overwrite_a_file_of_the_users_at_the_plugins_place() {
    let env = Env::new("empty");
    env.write(".opencode/plugins/hook-engine.js", OWN_PLUGIN);
    let out = env.hook(&["install", "--agent", "opencode", "--scope", "project", "--yes"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("something else is there"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(env.ws.join(".opencode/plugins/hook-engine.js")).unwrap(), OWN_PLUGIN);
}

#[test]
fn the_bridge_denies_opencodes_bash_tool_under_its_own_names() {
    let env = Env::new("empty");
    env.write(
        ".hooks/hooks.yaml",
        "- id: no-rm\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  \
         shell: \"grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\"\n",
    );
    assert_eq!(env.hook(&["trust", "--all", "--yes"]).code, 0);
    for agent in ["opencode", "kilo"] {
        let input = json!({"hook_event_name": "tool.execute.before", "session_id": "s1", "cwd": env.ws,
                           "tool_name": "bash", "tool_input": {"command": "rm -rf /", "description": "x"}});
        let out = env.bridge(agent, &input);
        assert_eq!(out.code, 0, "{out:#?}");
        let answer = out.json();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
        assert!(answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("no rm -rf here"));
        let input = json!({"hook_event_name": "tool.execute.before", "session_id": "s1", "cwd": env.ws,
                           "tool_name": "bash", "tool_input": {"command": "ls"}});
        assert_eq!(env.bridge(agent, &input).stdout, "", "a pass says nothing");
    }
}

#[test]
fn the_plugins_own_tests_pass_with_the_real_bridge_behind_it() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hook-agents/plugin/opencode.test.mjs");
    let out = Command::new("node")
        .arg("--test")
        .arg(&tests)
        .env("HOOK_BIN", HOOK)
        .output()
        .expect("node runs the plugin's tests (.ci/setup installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("# fail 0") && stdout.contains("# skipped 0"), "{stdout}");
}
