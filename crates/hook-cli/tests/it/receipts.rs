//! `hook receipts` end to end: what `hook run` wrote, read back and verified; a tampered log is caught.

use crate::common;

use std::time::Duration;

use common::{Env, assert_one_line_error};

/// Two runs of the gates workspace's pre_tool gate: four receipts. Returns the log path.
fn write_receipts(env: &Env) -> std::path::PathBuf {
    let mut log = None;
    for command in ["ls", "rm -rf /"] {
        let input = serde_json::json!({ "command": command }).to_string();
        let out = env.hook(&["run", "pre_tool", "--tool", "shell", "--input", &input, "--json", "--trust-workspace"]);
        let path = out.json()["receipts"].as_str().unwrap().replace("[HOME]", env.home.to_str().unwrap());
        log = Some(std::path::PathBuf::from(path));
    }
    log.unwrap()
}

#[test]
fn receipts_verify_passes_on_a_good_log_and_tail_reads_it_back() {
    let env = Env::new("gates");
    let log = write_receipts(&env);
    let out = env.hook(&["receipts", "verify"]);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stdout.starts_with("intact: 4 lines in 1 file, [HOME]/state/hooks/receipts/"), "{}", out.stdout);

    let json = env.hook(&["receipts", "tail", "-n", "2", "--json"]).json();
    let receipts = json["receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 2, "{json:#}");
    assert_eq!(
        (receipts[0]["hook_id"].as_str(), receipts[0]["outcome"].as_str()),
        (Some("gates.decide"), Some("blocked"))
    );
    let text = env.hook(&["receipts"]);
    assert_eq!(text.code, 0);
    assert_eq!(text.stdout.lines().filter(|l| l.contains(" pre_tool shell gates.")).count(), 4, "{}", text.stdout);
    assert!(log.exists());
}

#[test]
fn receipts_verify_on_a_tampered_log_exits_1_naming_the_first_broken_line() {
    let env = Env::new("gates");
    let log = write_receipts(&env);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Someone rewrites the outcome of the third receipt (the blocked call) to look harmless.
    assert!(lines[2].contains(r#""outcome":"blocked""#), "{}", lines[2]);
    lines[2] = lines[2].replace(r#""outcome":"blocked""#, r#""outcome":"command_ok""#);
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();

    let out = env.hook(&["receipts", "verify"]);
    assert_eq!(out.code, 1, "{out:#?}");
    let first = out.stdout.lines().next().unwrap();
    assert!(first.starts_with("[HOME]/state/hooks/receipts/") && first.contains(".jsonl:3: edited: "), "{first}");
    assert!(out.stdout.contains("BROKEN: the chain breaks at line 3 of "), "{}", out.stdout);
    let json = env.hook(&["receipts", "verify", "--json"]);
    assert_eq!(json.code, 1);
    assert_eq!(json.json()["report"]["broken"]["line"], 3);
}

#[test]
fn receipts_verify_without_a_log_is_one_line() {
    let env = Env::new("gates");
    assert_one_line_error(&env.hook(&["receipts", "verify"]), "no receipt log at `[HOME]/state/hooks/receipts/");
    let out = env.hook(&["receipts", "tail"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("no receipts yet in "), "{}", out.stdout);
}

/// While another process keeps the log's lock, a dispatch's receipts cannot be appended: they are marked missing,
/// and `verify` then reports how many and when instead of `intact` (exit 1), the chain itself unbroken.
#[test]
fn receipts_lost_to_a_held_log_lock_are_reported_by_verify_with_their_count_and_time() {
    let env = Env::new("gates");
    let log = write_receipts(&env);
    let lock = std::path::PathBuf::from(format!("{}.lock", log.display()));
    let holder = common::LockHolder::new(&lock);
    let input = serde_json::json!({ "command": "ls" }).to_string();
    let run = env.command(&["run", "pre_tool", "--tool", "shell", "--input", &input, "--trust-workspace"]);
    let out = env.finish_within(run, b"", Duration::from_secs(30));
    assert_eq!(out.code, 0, "the dispatch itself is not failed by its receipts: {out:#?}");
    assert!(out.stderr.contains("is locked by another process"), "{out:#?}");
    drop(holder);

    let out = env.hook(&["receipts", "verify"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.starts_with("the chain holds what was written: 4 lines in 1 file"), "{}", out.stdout);
    let incomplete = out.stdout.lines().find(|l| l.starts_with("INCOMPLETE: ")).expect(&out.stdout);
    assert!(incomplete.contains("2 receipts were not written, at 20"), "{incomplete}");
    assert!(incomplete.contains(".jsonl.gaps"), "{incomplete}");
    assert!(!out.stdout.contains("intact:"), "{}", out.stdout);

    let json = env.hook(&["receipts", "verify", "--json"]);
    assert_eq!(json.code, 1);
    let json = json.json();
    assert_eq!((&json["intact"], &json["chain_intact"]), (&false.into(), &true.into()), "{json:#}");
    assert_eq!((&json["missing"]["receipts"], &json["missing"]["marks"]), (&2.into(), &1.into()), "{json:#}");
    let (first, last) = (json["missing"]["first"].as_str().unwrap(), json["missing"]["last"].as_str().unwrap());
    assert!(first.ends_with('Z') && first <= last, "{json:#}");
    // Later receipts chain on from the last one written: nothing is broken, the gap stays reported.
    write_receipts(&env);
    let out = env.hook(&["receipts", "verify"]);
    assert_eq!(out.code, 1, "{out:#?}");
    assert!(out.stdout.contains("8 lines") && out.stdout.contains("INCOMPLETE: 2 receipts"), "{}", out.stdout);
}

/// `verify` facing a log lock another process keeps fails within its wait, in one line, instead of hanging.
#[test]
fn receipts_verify_facing_a_held_log_lock_fails_in_one_line_instead_of_hanging() {
    let env = Env::new("gates");
    let log = write_receipts(&env);
    let _holder = common::LockHolder::new(std::path::Path::new(&format!("{}.lock", log.display())));
    let out = env.finish_within(env.command(&["receipts", "verify"]), b"", Duration::from_secs(60));
    assert_one_line_error(&out, "cannot read [HOME]/state/hooks/receipts/");
    assert!(out.stderr.contains(".jsonl.lock` is locked by another process"), "{out:#?}");
}
