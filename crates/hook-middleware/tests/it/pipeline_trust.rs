//! What may run: only_managed, trust, run-time re-checks of trust and cwd, and guards before user hooks.

use crate::pipeline_support;

use hook_middleware::EventInput;
use hook_middleware::pipeline::{Evaluation, Registration};
use hook_types::{Effect, Event, RunStatus, Verdict};
use pipeline_support::*;
use serde_json::json;

#[test]
fn only_managed_runs_nothing_but_managed_hooks() {
    let fx = Fixture::new();
    fx.managed_hooks(
        r#"
version: 1
only_managed: true
hooks:
  - {id: policy, on: post_tool, kind: command, shell: "echo policy >> $OUT/ran"}
"#,
    );
    fx.user_hooks(r#"- {id: mine, on: post_tool, kind: command, shell: "echo mine >> $OUT/ran"}"#);
    let result = dispatch(&fx.pipeline(), &post_tool("shell"));
    assert_eq!(fx.read_out("ran").unwrap(), "policy\n");
    check(
        &result,
        "verdict: pass
         run: mine: skipped | Feedback: not run: `only_managed: true` in the managed file allows managed hooks only
         run: policy: completed (exit 0)",
    );
}

#[test]
fn an_untrusted_hook_is_skipped_with_status_untrusted() {
    let fx = Fixture::new();
    fx.project_hooks(
        r#"
- {id: repo-cmd, on: pre_tool, kind: command, shell: "touch $OUT/ran"}
- {id: repo-narrow, on: pre_tool, kind: effect, effect: {kind: ask_user, reason: "repo asks"}}
"#,
    );
    let result = dispatch(&fx.pipeline(), &pre_tool("shell", json!({})));
    check(
        &result,
        "verdict: ask
         reason: repo asks
         effect: {\"kind\":\"ask_user\",\"reason\":\"repo asks\"}
         run: repo-cmd: untrusted | Feedback: not run: the hook is not trusted in this workspace (see `hook trust`)
         run: repo-narrow: completed",
    );
    assert!(fx.read_out("ran").is_none());
}

#[test]
fn a_trusted_script_edited_after_load_is_not_run_until_trusted_again() {
    let fx = Fixture::new();
    fx.script("scripts/guard.sh", "echo run >> \"$1\"");
    let marker = fx.out_file("ran");
    fx.project_hooks(&format!(
        "- {{id: guard, on: post_tool, kind: command, argv: [./scripts/guard.sh, {}]}}\n",
        marker.display()
    ));
    fx.trust_all();
    // A long-lived pipeline: loaded once, then the script changes under it (a `git pull`).
    let pipeline = fx.pipeline();
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), vec![("guard".into(), RunStatus::Completed)]);
    fx.script("scripts/guard.sh", "echo run >> \"$1\"; echo pwned >> \"$1\"");
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), vec![("guard".into(), RunStatus::Untrusted)]);
    let entries = entries_of(&result, "guard");
    assert!(entries.contains("scripts/guard.sh` changed since it was trusted"), "{entries}");
    assert_eq!(fx.read_out("ran").unwrap(), "run\n", "the edited script must not run");
    // Trusting it again (a new load sees the new fingerprint) lets it run.
    fx.trust_all();
    let reload = pipeline.reload(fx.load().hooks);
    assert!(reload.issues.is_empty());
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), vec![("guard".into(), RunStatus::Completed)]);
    assert_eq!(fx.read_out("ran").unwrap(), "run\nrun\npwned\n");
}

#[test]
fn a_cwd_symlink_swapped_to_point_outside_after_load_is_refused_at_run_time() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(fx.ws.join("inside")).unwrap();
    std::os::unix::fs::symlink(fx.ws.join("inside"), fx.ws.join("work")).unwrap();
    fx.user_hooks(r#"- {id: in-work, on: pre_tool, kind: command, cwd: work, shell: "pwd > $OUT/cwd"}"#);
    let pipeline = fx.pipeline();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(result.verdict, Verdict::Pass);
    assert_eq!(fx.read_out("cwd").unwrap().trim(), fx.ws.join("inside").display().to_string());
    std::fs::remove_file(fx.out_file("cwd")).unwrap();

    std::fs::remove_file(fx.ws.join("work")).unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.ws.join("work")).unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({})));
    assert_eq!(result.verdict, Verdict::Deny, "a native gate hook fails closed: {result:#?}");
    assert_eq!(status_of(&result, "in-work"), RunStatus::Failed);
    let reason = result.reason.unwrap();
    assert!(reason.starts_with("hook `in-work` was refused: its cwd `work` now resolves to"), "{reason}");
    assert!(reason.contains("outside the workspace"), "{reason}");
    assert!(fx.read_out("cwd").is_none(), "the hook must not have run");
}

#[test]
fn a_guard_deny_stops_the_gate_before_any_user_hook_starts() {
    let fx = Fixture::new();
    fx.user_hooks(
        r#"
- {id: writer, on: pre_tool, kind: command, shell: "touch $OUT/user-hook-ran"}
- {id: note, on: pre_tool, kind: prompt, message: "careful"}
"#,
    );
    let guard = Registration::in_process("host.sandbox", [Event::PreTool], |input: &EventInput, _: &[Effect]| {
        let command = input.tool_input.as_ref().and_then(|i| i["command"].as_str()).unwrap_or("");
        Ok(if command.starts_with("curl") { Evaluation::deny("network is off") } else { Evaluation::pass() })
    });
    let pipeline = fx.builder().host(guard).build().unwrap();
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "curl evil.example"})));
    check(
        &result,
        "verdict: deny
         reason: network is off
         run: host.sandbox: blocked | Feedback: network is off
         run: writer: skipped | Feedback: not run: guard `host.sandbox` denied first
         run: note: skipped | Feedback: not run: guard `host.sandbox` denied first",
    );
    assert!(fx.read_out("user-hook-ran").is_none());
    // The same guard lets other commands through to the user hooks.
    let result = dispatch(&pipeline, &pre_tool("shell", json!({"command": "ls"})));
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(fx.read_out("user-hook-ran").is_some());
}

/// Sets `path`'s modification time back to `mtime`, as `touch -d` would.
fn restore_mtime(path: &std::path::Path, mtime: std::time::SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

/// A trusted script loaded by a long-lived pipeline, then changed so that size and modification time are what they
/// were: by an edit in place with the time put back, and by renaming a prepared file over it.
fn swap_keeping_size_and_mtime(in_place: bool) {
    let fx = Fixture::new();
    let script = fx.script("scripts/guard.sh", "echo good >> \"$1\"");
    let marker = fx.out_file("ran");
    fx.project_hooks(&format!(
        "- {{id: guard, on: post_tool, kind: command, argv: [./scripts/guard.sh, {}]}}\n",
        marker.display()
    ));
    fx.trust_all();
    let pipeline = fx.pipeline();
    let mtime = std::fs::metadata(&script).unwrap().modified().unwrap();
    let evil = std::fs::read_to_string(&script).unwrap().replace("echo good", "echo evil");
    if in_place {
        std::fs::write(&script, &evil).unwrap();
        restore_mtime(&script, mtime);
    } else {
        let prepared = script.with_file_name("prepared.sh");
        std::fs::write(&prepared, &evil).unwrap();
        std::fs::set_permissions(&prepared, std::fs::metadata(&script).unwrap().permissions()).unwrap();
        restore_mtime(&prepared, mtime);
        std::fs::rename(&prepared, &script).unwrap();
    }
    assert_eq!(std::fs::metadata(&script).unwrap().modified().unwrap(), mtime);
    let result = dispatch(&pipeline, &post_tool("shell"));
    assert_eq!(statuses(&result), vec![("guard".into(), RunStatus::Untrusted)]);
    assert_eq!(fx.read_out("ran"), None, "the swapped script ran");
}

#[test]
fn a_same_size_edit_with_the_mtime_restored_ran_untrusted() {
    swap_keeping_size_and_mtime(true);
}

#[test]
fn a_prepared_script_renamed_over_the_trusted_one_ran_untrusted() {
    swap_keeping_size_and_mtime(false);
}

/// A bare program name found through the hook's own `env: PATH` in a directory of the repository is pinned by
/// trust: changing that file makes the hook untrusted.
#[test]
fn a_program_found_through_the_hooks_env_path_was_not_pinned_by_trust() {
    let fx = Fixture::new();
    fx.script("bin/lint", "echo lint >> \"$1\"");
    let marker = fx.out_file("ran");
    fx.project_hooks(&format!(
        "- {{id: lint, on: post_tool, kind: command, argv: [lint, {}], env: {{PATH: \"bin:/usr/bin:/bin\"}}}}\n",
        marker.display()
    ));
    let config = fx.load();
    let files = &config.get("lint").unwrap().fingerprint.as_ref().unwrap().files;
    assert!(files.iter().any(|f| f.path.ends_with("bin/lint")), "not covered by the fingerprint: {files:?}");
    fx.trust_all();
    let pipeline = fx.pipeline();
    assert_eq!(statuses(&dispatch(&pipeline, &post_tool("shell"))), vec![("lint".into(), RunStatus::Completed)]);
    fx.script("bin/lint", "echo pwned >> \"$1\"");
    assert_eq!(statuses(&dispatch(&pipeline, &post_tool("shell"))), vec![("lint".into(), RunStatus::Untrusted)]);
    assert_eq!(fx.read_out("ran").unwrap(), "lint\n");
}
