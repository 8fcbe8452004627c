//! The notice of guards that matched and did not run: each untrusted or modified hook named once, in precedence
//! order, with why, once per session — whether it was modified before the load or after it.

use hook_types::RunStatus;

use crate::pipeline_support::*;
use serde_json::json;

const TOLD: &str = "matched this event but did not run";

#[test]
fn every_skipped_guard_is_named_once_per_session_with_why() {
    let fx = Fixture::new();
    fx.script("scripts/before.sh", "exit 0");
    fx.script("scripts/after.sh", "exit 0");
    // Trusted first, both: `before` is edited before the pipeline loads, `after` once it has.
    fx.project_hooks(
        "- {id: before, on: pre_tool, kind: command, argv: [./scripts/before.sh]}\n\
         - {id: after, on: pre_tool, kind: command, argv: [./scripts/after.sh]}\n",
    );
    fx.trust_all();
    fx.project_hooks(
        "- {id: before, on: pre_tool, kind: command, argv: [./scripts/before.sh]}\n\
         - {id: after, on: pre_tool, kind: command, argv: [./scripts/after.sh]}\n\
         - {id: never-trusted, on: pre_tool, kind: command, shell: \"exit 0\"}\n\
         - {id: disabled, on: pre_tool, kind: command, shell: \"exit 0\", enabled: false}\n\
         - {id: other-event, on: post_tool, kind: command, shell: \"exit 0\"}\n\
         - {id: last, on: pre_tool, kind: command, shell: \"exit 1\"}\n",
    );
    fx.script("scripts/before.sh", "exit 1");
    let pipeline = fx.pipeline();
    fx.script("scripts/after.sh", "exit 1");

    let first = dispatch(&pipeline, &pre_tool("shell", json!({})).with_session("s1"));
    let statuses = statuses(&first);
    let status = |id: &str| statuses.iter().find(|(hook, _)| hook == id).map(|(_, status)| *status);
    assert_eq!(status("before"), Some(RunStatus::Untrusted), "{statuses:?}");
    assert_eq!(status("after"), Some(RunStatus::Untrusted), "{statuses:?}");
    assert_eq!(status("disabled"), Some(RunStatus::Skipped), "{statuses:?}");
    assert_eq!(
        first.notices,
        [format!(
            "4 hooks {TOLD}: `before` (changed since it was trusted), `after` (changed since it was trusted), \
             `never-trusted` (not trusted in this workspace), `last` (not trusted in this workspace). Review with \
             `hook inspect`, then run `hook trust` to let them run."
        )]
    );

    // Told once per session: not again in the same one, again in another.
    let again = dispatch(&pipeline, &pre_tool("shell", json!({})).with_session("s1"));
    assert!(again.notices.iter().all(|n| !n.contains(TOLD)), "{:?}", again.notices);
    let other = dispatch(&pipeline, &pre_tool("shell", json!({})).with_session("s2"));
    assert_eq!(other.notices, first.notices);
}

#[test]
fn thousands_of_skipped_guards_are_each_named_once_in_order() {
    let fx = Fixture::new();
    let count = 3_000;
    let yaml: String =
        (0..count).map(|i| format!("- {{id: guard-{i}, on: pre_tool, kind: command, shell: \"exit 0\"}}\n")).collect();
    fx.project_hooks(&yaml);
    let result = dispatch(&fx.pipeline(), &pre_tool("shell", json!({})).with_session("s"));
    assert_eq!(result.notices.len(), 1, "{:?}", result.notices);
    let notice = &result.notices[0];
    let named: Vec<&str> = notice.split('`').skip(1).step_by(2).filter(|name| name.starts_with("guard-")).collect();
    let expected: Vec<String> = (0..count).map(|i| format!("guard-{i}")).collect();
    assert_eq!(named, expected);
    assert!(notice.starts_with(&format!("{count} hooks {TOLD}: ")), "{}", &notice[..80]);
}
