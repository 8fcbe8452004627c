//! `hook test` on hooks that do not run: each case lists them with the reason, and a verdict only they could have
//! given fails naming them, untrusted and modified alike.

use crate::common::Env;

/// A workspace with one command guard on shell calls and a case that expects it to deny.
fn workspace() -> Env {
    let env = Env::new("empty");
    env.write("guard.sh", "#!/bin/sh\necho no rm >&2\nexit 2\n");
    std::fs::set_permissions(env.ws.join("guard.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write(
        ".hooks/hooks.yaml",
        "- {id: no-rm, on: pre_tool, tools: [shell], kind: command, shell: ./guard.sh}\n\
         - {id: off, on: pre_tool, enabled: false, kind: command, shell: ./guard.sh}\n",
    );
    env.write(
        "cases.yaml",
        "- {name: rm is denied, event: pre_tool, tool: shell, input: {command: rm -rf /}, expect: {verdict: deny}}\n",
    );
    env
}

#[test]
fn an_untrusted_guard_fails_the_case_saying_it_never_ran() {
    let env = workspace();
    let out = env.hook(&["test", "cases.yaml"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "FAIL  rm is denied: expected verdict deny, got pass: `no-rm` (untrusted), `off` (disabled) matched and did \
         not run, so they could not give that verdict (review it with `hook trust`, or run the cases with \
         --trust-workspace; it says `enabled: false`)"
    );
    assert_eq!(
        lines[1],
        "      skipped `no-rm` (untrusted): not run: the hook is not trusted in this workspace (see `hook trust`)"
    );
    assert_eq!(lines[2], "      skipped `off` (disabled): not run: the hook is disabled (`enabled: false`)");

    let json = env.hook(&["test", "cases.yaml", "--json"]).json();
    let skipped = &json["cases"][0]["skipped"];
    assert_eq!((skipped[0]["id"].as_str(), skipped[0]["reason"].as_str()), (Some("no-rm"), Some("untrusted")));
}

#[test]
fn a_guard_modified_since_it_was_trusted_is_reported_as_modified() {
    let env = workspace();
    assert_eq!(env.hook(&["trust", "no-rm", "--yes"]).code, 0);
    let out = env.hook(&["test", "cases.yaml"]);
    assert_eq!(out.code, 0, "trusted, it denies: {out:#?}");
    assert_eq!(
        out.stdout.lines().nth(1),
        Some("      skipped `off` (disabled): not run: the hook is disabled (`enabled: false`)")
    );

    env.write("guard.sh", "#!/bin/sh\necho changed >&2\nexit 2\n");
    let out = env.hook(&["test", "cases.yaml"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(
        out.stdout.starts_with(
            "FAIL  rm is denied: expected verdict deny, got pass: `no-rm` (modified), `off` (disabled) matched and did \
             not run, so they could not give that verdict (what it runs changed since it was trusted: review and \
             trust it again with `hook trust`;"
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("      skipped `no-rm` (modified): not run: what the hook runs changed since"));
}
