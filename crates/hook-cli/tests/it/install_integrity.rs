//! Install and uninstall as a hostile repository or a careless user would meet them: they never write outside the
//! scope's directory, never through a name someone planted, never over an edit they did not see, and refuse a file
//! they would have to replace part of.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Env, read_json};
use serde_json::Value;

/// The user's own Claude Code settings: a hook whose command line carries a secret.
const USER_SETTINGS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      { "hooks": [ { "type": "command", "command": "notify --token s3cr3t" } ] }
    ]
  }
}
"#;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir`, with its bytes (symlinks as their targets), to prove nothing changed.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                out.push((path.clone(), format!("-> {}", std::fs::read_link(&path).unwrap().display())));
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()));
            }
        }
    }
    out.sort();
    out
}

/// A workspace with no agent file of its own, and the user's settings in `~/.claude`.
fn with_user_settings() -> Env {
    let env = Env::new("tests/fixtures/install/claude");
    std::fs::remove_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::remove_dir_all(env.ws.join(".hooks")).unwrap();
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/settings.json"), USER_SETTINGS).unwrap();
    env
}

#[test]
fn a_project_settings_file_linked_to_the_users_is_refused_and_the_users_file_untouched() {
    // The file itself a link, then its directory: either way the real path is the user's file.
    for link_the_directory in [false, true] {
        let env = with_user_settings();
        if link_the_directory {
            symlink(env.home.join(".claude"), env.ws.join(".claude")).unwrap();
        } else {
            std::fs::create_dir(env.ws.join(".claude")).unwrap();
            symlink(env.home.join(".claude/settings.json"), env.ws.join(".claude/settings.json")).unwrap();
        }
        let home_before = tree(&env.home);
        let out = env.hook(&["install", "--agent", "claude", "--yes"]);
        common::assert_one_line_error(&out, "[WS]/.claude/settings.json`: ");
        assert!(out.stderr.contains("outside the workspace `[WS]`"), "{out:#?}");
        assert!(out.stderr.contains("[HOME]/.claude/settings.json"), "the real path is named: {out:#?}");
        assert_eq!(read(&env.home.join(".claude/settings.json")), USER_SETTINGS);
        assert_eq!(tree(&env.home), home_before, "nothing under the home directory changed");
        assert!(!env.ws.join(".hooks").exists(), "the user's hook did not move into the workspace");

        // Uninstall refuses the same way, even when a record names the file.
        let out = env.hook(&["uninstall", "--agent", "claude"]);
        assert!(out.code == 0 && out.stdout.starts_with("nothing to uninstall"), "{out:#?}");
    }
}

#[test]
fn a_link_planted_after_install_is_refused_by_uninstall() {
    let env = with_user_settings();
    std::fs::create_dir(env.ws.join(".claude")).unwrap();
    std::fs::write(env.ws.join(".claude/settings.json"), "{}\n").unwrap();
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    // A pull replaces the project file with a link to the user's own.
    std::fs::remove_file(env.ws.join(".claude/settings.json")).unwrap();
    symlink(env.home.join(".claude/settings.json"), env.ws.join(".claude/settings.json")).unwrap();
    let out = env.hook(&["uninstall", "--agent", "claude"]);
    common::assert_one_line_error(&out, "outside the workspace");
    assert_eq!(read(&env.home.join(".claude/settings.json")), USER_SETTINGS);
}

#[test]
fn a_dangling_link_or_an_event_that_is_not_a_list_is_refused_not_replaced() {
    let env = with_user_settings();
    std::fs::create_dir(env.ws.join(".claude")).unwrap();
    symlink(env.ws.join("gone.json"), env.ws.join(".claude/settings.json")).unwrap();
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    common::assert_one_line_error(&out, "is a symlink to `[WS]/gone.json`, which does not exist");
    assert!(std::fs::symlink_metadata(env.ws.join(".claude/settings.json")).unwrap().file_type().is_symlink());
    assert!(!env.ws.join("gone.json").exists());

    std::fs::remove_file(env.ws.join(".claude/settings.json")).unwrap();
    let settings = "{\n  \"hooks\": {\n    \"PreToolUse\": {\n      \"matcher\": \"Bash\"\n    }\n  }\n}\n";
    env.write(".claude/settings.json", settings);
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    common::assert_one_line_error(&out, "`hooks.PreToolUse` is an object, expected a list of matcher groups");
    assert_eq!(read(&env.ws.join(".claude/settings.json")), settings);
    assert!(!env.config_home().join("installs.json").exists());
}

/// The pid the next process will most likely get.
fn next_pid() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .map_or_else(std::process::id, |last| last + 1)
}

#[test]
fn planted_temp_name_symlinks_change_nothing_outside() {
    let env = Env::new("tests/fixtures/install/claude");
    let victim_dir = tempfile::tempdir().unwrap();
    let victim = victim_dir.path().join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    // Every name a pid-suffixed temporary file could take for the next few hundred processes, in each directory
    // install writes into.
    let first = next_pid();
    for dir in [".claude", ".hooks"] {
        for pid in first..first + 400 {
            for name in ["settings.json", "hooks.yaml"] {
                let _ = symlink(&victim, env.ws.join(dir).join(format!(".{name}.hook-install.{pid}")));
            }
        }
    }
    let out = env.hook(&["install", "--agent", "claude", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    let out = env.hook(&["uninstall", "--agent", "claude"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert_eq!(read(&victim), "precious\n", "the link's target was not written");
    for file in [".claude/settings.json", ".hooks/hooks.yaml"] {
        let meta = std::fs::symlink_metadata(env.ws.join(file)).unwrap();
        assert!(meta.is_file(), "{file} is a regular file, not a planted link");
    }
    let fixture = common::repo_root().join("tests/fixtures/install/claude/.claude/settings.json");
    assert_eq!(read(&env.ws.join(".claude/settings.json")), read(&fixture), "uninstall restored the original");
}

/// One install racing one edit made `delay` after the install started: the agent saving its settings the way
/// editors do (read, change, write a new file, rename it over). Returns whether install went ahead.
fn race(delay: Duration, n: u64) -> bool {
    let env = Env::new("tests/fixtures/install/claude");
    let settings = env.ws.join(".claude/settings.json");
    let native_before = read(&env.ws.join(".hooks/hooks.yaml"));
    let child = env
        .command(&["install", "--agent", "claude", "--yes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let mut edited: Value = read_json(&settings);
    edited["editor"] = n.into();
    let temp = env.ws.join(".claude/.settings.json.editor");
    std::fs::write(&temp, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    std::fs::rename(&temp, &settings).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);

    let after = read_json(&settings);
    assert_eq!(after["editor"], n, "run {n} (edit after {delay:?}) lost the edit; install said: {stderr}");
    if output.status.success() {
        return true;
    }
    assert!(stderr.contains("changed while hook install ran; nothing was changed"), "run {n}: {stderr}");
    assert_eq!(read(&env.ws.join(".hooks/hooks.yaml")), native_before, "run {n}: the native file is as it was");
    assert!(!env.config_home().join("installs.json").exists(), "run {n}: nothing was recorded");
    false
}

#[test]
fn sixty_installs_racing_an_editor_lose_no_edit() {
    // How long one install takes here; the edits are spread over that time, so some land between install's read
    // and its write.
    let env = Env::new("tests/fixtures/install/claude");
    let started = Instant::now();
    assert_eq!(env.hook(&["install", "--agent", "claude", "--yes"]).code, 0);
    let span = started.elapsed();
    let went_ahead = (0..60u64).filter(|&n| race(span * n as u32 / 60, n)).count();
    // Both outcomes happen; which ones is the machine's business.
    eprintln!("{went_ahead} of 60 installs went ahead; the others stopped on the edit");
}

#[test]
fn a_user_install_needs_a_home_it_can_name_and_prints_it() {
    let env = with_user_settings();
    for unset in [true, false] {
        let mut command = env.command(&["install", "--agent", "claude", "--scope", "user", "--yes"]);
        if unset {
            command.env_remove("HOME");
        } else {
            command.env("HOME", "relative/home");
        }
        let out = env.finish(command);
        common::assert_one_line_error(&out, "--scope user writes under the home directory");
        let mut command = env.command(&["uninstall", "--agent", "claude", "--scope", "user"]);
        command.env_remove("HOME");
        common::assert_one_line_error(&env.finish(command), "$HOME is not set");
    }
    assert_eq!(read(&env.home.join(".claude/settings.json")), USER_SETTINGS);

    let out = env.hook(&["install", "--agent", "claude", "--scope", "user", "--yes"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.starts_with("user scope: the home directory is [HOME] ($HOME)\n"), "{out:#?}");
    let out = env.hook(&["install", "--agent", "claude", "--scope", "user", "--json"]);
    assert_eq!(out.json()["home"], "[HOME]", "{out:#?}");
}
