//! A handler that runs `hook bridge` (what `hook install` writes into an agent's file, or anything else that calls
//! the bridge) loads as listed but never as a hook in force: no host that loads the workspace runs it, it needs no
//! trust, and the inspect report says why it does not run.

use std::fs;
use std::path::{Path, PathBuf};

use hook_config::BridgeProgram;
use hook_config::{Config, ExclusionReason, InspectReport, Layout, LoadOptions, TrustStatus, load};

/// A workspace with `files` (workspace-relative) and a config home beside it, loaded with `program` as the bridge.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("ws")).unwrap();
        for (relative, text) in files {
            let path = root.join("ws").join(relative);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            if relative.ends_with(".sh") {
                // A script a hook runs needs its run bit, or the hook does not load.
                fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
            }
        }
        Fixture { _dir: dir, root }
    }

    fn load(&self, program: BridgeProgram) -> Config {
        let layout = Layout::new(self.root.join("ws"))
            .with_home(None)
            .with_config_home(self.root.join("cfg"))
            .with_managed_file(self.root.join("managed.yaml"));
        load(&layout, &LoadOptions { bridge_program: program, ..LoadOptions::default() }).unwrap()
    }
}

/// What `hook install --agent claude` leaves: the bridge on two events beside a hook of the user's own, and a native
/// file where a hook calls another agent's bridge.
fn installed() -> Fixture {
    let bridge =
        |agent: &str| format!("/opt/tools/hook bridge --protocol {agent} --config-home /home/me/.config/hooks");
    let group =
        |command: String| serde_json::json!({"hooks": [{"type": "command", "command": command, "timeout": 66}]});
    let settings = serde_json::json!({"hooks": {
        "PreToolUse": [group(bridge("claude")), group("./scripts/guard.sh".into())],
        "Stop": [group(bridge("claude"))],
    }});
    Fixture::new(&[
        (".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap()),
        (
            ".hooks/hooks.yaml",
            &format!(
                "- {{id: mark, on: pre_tool, kind: command, shell: ./scripts/mark.sh}}\n\
                 - {{id: via-codex, on: pre_tool, kind: command, argv: [hook, bridge, --protocol, codex]}}\n\
                 - {{id: not-a-bridge, on: pre_tool, kind: command, shell: 'hook run pre_tool; echo bridge'}}\n\
                 - {{id: gemini-bridge, on: turn_end, enabled: false, kind: command, shell: \"{}\"}}\n",
                bridge("gemini")
            ),
        ),
        ("scripts/guard.sh", "#!/bin/sh\nexit 0\n"),
        ("scripts/mark.sh", "#!/bin/sh\nexit 0\n"),
    ])
}

fn ids(config: &Config) -> Vec<&str> {
    config.hooks.iter().map(|h| h.decl.id.as_str()).collect()
}

#[test]
fn a_bridge_entry_is_never_a_hook_in_force_whatever_file_holds_it() {
    let fixture = installed();
    let config = fixture.load(BridgeProgram::named(["hook"]));
    assert_eq!(config.hooks.len(), 3, "{:#?}", ids(&config));
    assert!(ids(&config).contains(&"mark") && ids(&config).contains(&"not-a-bridge"), "{:?}", ids(&config));
    let guard = config.hooks.iter().find(|h| h.decl.source.ends_with(".claude/settings.json")).unwrap();
    assert!(matches!(&guard.decl.spec, hook_config::HookSpec::Command(c) if c.cwd == "."), "{guard:#?}");

    let excluded: Vec<(&str, &Path, usize, ExclusionReason)> = config
        .excluded
        .iter()
        .map(|e| {
            (e.decl.event.canonical_name(), e.decl.source.strip_prefix(&fixture.root).unwrap(), e.decl.index, e.reason)
        })
        .collect();
    let settings = Path::new("ws/.claude/settings.json");
    let native = Path::new("ws/.hooks/hooks.yaml");
    assert_eq!(
        excluded,
        [
            ("pre_tool", native, 1, ExclusionReason::Bridge),
            ("turn_end", native, 3, ExclusionReason::Bridge),
            ("pre_tool", settings, 0, ExclusionReason::Bridge),
            ("turn_end", settings, 2, ExclusionReason::Bridge),
        ],
        "every bridge entry, in precedence order, disabled or not"
    );
    // Out of the merge and of trust: nothing for `hook trust` to offer, no fingerprint, no shadowing, no override.
    assert!(config.overridden.is_empty() && config.shadowed.is_empty());
    assert!(config.hooks.iter().all(|h| h.trust == TrustStatus::Untrusted), "only the real commands wait for trust");
}

#[test]
fn a_host_that_ships_the_cli_under_its_own_name_names_it() {
    let fixture = installed();
    // Under another name, `hook …` is just a program of that name: it loads as any other command hook.
    let config = fixture.load(BridgeProgram::named(["agent-hooks"]));
    assert!(config.excluded.is_empty(), "{:#?}", config.excluded);
    assert_eq!(config.hooks.len(), 7);
}

#[test]
fn inspect_lists_a_bridge_entry_with_why_it_never_runs() {
    let fixture = installed();
    let report = InspectReport::new(&fixture.load(BridgeProgram::named(["hook"])));
    let text = report.render_text().replace(&*fixture.root.to_string_lossy(), "[tmp]");
    let at = text.find("── never run (4) ").unwrap_or_else(|| panic!("no never-run section:\n{text}"));
    let section = text[at..].split("\n\n").next().unwrap();
    insta::assert_snapshot!("bridge_entries_never_run_text", section);
    assert!(text.lines().all(|l| l.chars().count() <= 80 || l.contains("[tmp]")), "80 columns:\n{text}");

    let json = serde_json::to_value(&report).unwrap();
    let first = &json["excluded"][0];
    assert_eq!((first["id"].as_str(), first["reason"].as_str()), (Some("via-codex"), Some("bridge")), "{first:#}");
    assert!(
        first["message"].as_str().unwrap().contains("run as a hook here it would run the workspace's hooks twice"),
        "{first:#}"
    );
    let back: InspectReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report, "the JSON form reads back");

    // A report without excluded declarations keeps the JSON it always had, and older reports still read.
    let plain = InspectReport::new(&Fixture::new(&[]).load(BridgeProgram::named(["hook"])));
    let mut json = serde_json::to_value(&plain).unwrap();
    assert!(json.get("excluded").is_none(), "{json:#}");
    json.as_object_mut().unwrap().remove("excluded");
    assert_eq!(serde_json::from_value::<InspectReport>(json).unwrap(), plain);
}
