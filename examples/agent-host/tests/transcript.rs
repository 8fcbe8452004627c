//! Runs the example host as a user would (`cargo run -p agent-host`) and reads its transcript: every event is
//! dispatched and every effect the host applies shows up in it.

use std::process::Command;

fn transcript() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agent-host")).output().expect("the example host runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", output.status);
    stdout
}

#[test]
fn the_host_plays_a_session_and_applies_every_effect() {
    let text = transcript();
    let has = |needle: &str| assert!(text.contains(needle), "no `{needle}` in the transcript:\n{text}");
    assert!(text.lines().count() >= 10, "{text}");

    // Config loaded through hook-config, trust as its user gave it.
    has("host: loaded 8 hooks, 0 issues");
    has("repo.upload-transcript");
    has("NOT trusted");
    // Every event is dispatched.
    for event in [
        "[session_start]",
        "[turn_start]",
        "[pre_tool]",
        "[turn_end]",
        "[compaction]",
        "[notification]",
        "[session_end]",
    ] {
        has(event);
    }
    // The coded guard, and a hook's denial told apart from the human's.
    has("DENIED by the host's guard host.no-sudo: this host never runs sudo");
    has("DENIED by hook repo.no-force-push (project): force pushes are off in this repository");
    has("a hook wants a human to decide: this writes to GitHub");
    has("REFUSED by the human (not by a hook)");
    // A rewrite, checked again by the guard, then run as rewritten.
    has("input rewritten by a hook to {\"command\":\"pip install --user requests\"}");
    has("ran shell {\"command\":\"pip install --user requests\"}");
    // protect_path enforced by the host; the other write goes through.
    has("REFUSED by the host: .env is protected (secrets live here)");
    has("ran write {\"file_path\":\"src/lib.rs\",\"content\":\"fn fixed() {}\"}");
    // A reminder into the context; a note on a failed result.
    has("into the model's context: Run the tests before you commit.");
    has("the model sees the result with a note: read the first failure before changing code");
    // The continuation, stopped by the cap (3 in a row) with a notice, in each of the two turns.
    assert_eq!(text.matches("a hook asks to continue: the tests still fail; keep going").count(), 6, "{text}");
    assert_eq!(text.matches("the cap of 3 stopped it here").count(), 2, "{text}");
    // The untrusted hook is reported, never run in silence: a notice for the user, and the skip.
    has("`repo.upload-transcript` (not trusted in this workspace)");
    has("skipped repo.upload-transcript (untrusted): not trusted, so it did not run");
    // The reload picks up the edited file, and the new hook applies.
    has("hooks.yaml changed: reloaded 9 hooks, generation 2");
    has("DENIED by hook repo.no-web (project): no web access from this repository");
    // Receipts, chained.
    has("receipts written, hash chain intact");
}
