//! The receipt log's hash chain: `verify` passes an untouched log and finds each kind of damage at the right line,
//! across rotation, with and without a host key.

use crate::receipts_support;

use std::fs;
use std::path::{Path, PathBuf};

use hook_middleware::receipts::{
    BreakKind, FileSink, FileSinkOptions, HostKey, ReceiptSink, VerifyError, VerifyReport, verify,
};
use receipts_support::receipt;
use sha2::{Digest, Sha256};

const KEY: &[u8] = b"host secret";

/// A log of `n` receipts written by a [`FileSink`] in a fresh directory.
struct Log {
    _dir: tempfile::TempDir,
    path: PathBuf,
    sink: FileSink,
}

impl Log {
    fn new(n: u64, options: FileSinkOptions) -> Log {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/hooks/receipts/ws.jsonl");
        let sink = FileSink::with_options(&path, options);
        let log = Log { _dir: dir, path, sink };
        log.append(1..=n);
        log
    }

    fn append(&self, range: std::ops::RangeInclusive<u64>) {
        for i in range {
            self.sink.record(&receipt(i)).unwrap();
        }
    }

    fn lines(&self) -> Vec<String> {
        fs::read_to_string(&self.path).unwrap().lines().map(str::to_owned).collect()
    }

    fn write_lines(&self, lines: &[String]) {
        fs::write(&self.path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }

    fn head(&self) -> PathBuf {
        sidecar(&self.path, ".head")
    }
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// Writes five receipts, lets `tamper` change the log, and checks where `verify` says the chain breaks:
/// `None` for intact, else the line number in the live log and the kind.
fn check(tamper: impl FnOnce(&Log), expected: Option<(u64, BreakKind)>) -> VerifyReport {
    let log = Log::new(5, FileSinkOptions::default());
    tamper(&log);
    let report = verify(&log.path, None).unwrap();
    let found = report.broken.as_ref().map(|b| (b.line, b.kind));
    assert_eq!(found, expected, "{report:#?}");
    if let Some(broken) = &report.broken {
        assert_eq!(broken.path, log.path, "the break names the file");
    }
    report
}

/// Changes one field of line `n` (1-based), keeping it valid JSON.
fn edit(lines: &mut [String], n: usize) {
    lines[n - 1] = lines[n - 1].replace("project.guard-", "project.guarD-");
}

#[test]
fn untouched_log_verifies_with_every_line_counted() {
    let report = check(|_| {}, None);
    assert_eq!((report.lines, report.first_seq, report.sealed), (5, Some(1), false));
    assert!(report.is_intact());
}

#[test]
fn log_lines_are_receipts_with_seq_and_the_previous_lines_sha256() {
    let log = Log::new(3, FileSinkOptions::default());
    let lines = log.lines();
    let first: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["seq"], 1);
    assert_eq!(first["prev"], "0".repeat(64));
    let second: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(second["prev"], hex::encode(Sha256::digest(lines[0].as_bytes())));
    let back: hook_types::Receipt = serde_json::from_str(&lines[1]).unwrap();
    assert_eq!(back, hook_types::Receipt { prev: back.prev.clone(), ..receipt(2) });
    let head = fs::read_to_string(log.head()).unwrap();
    assert_eq!(head, format!("{} 3\n", hex::encode(Sha256::digest(lines[2].as_bytes()))));
}

#[test]
fn verify_finds_an_edited_line() {
    let report = check(
        |log| {
            let mut lines = log.lines();
            edit(&mut lines, 3);
            log.write_lines(&lines);
        },
        Some((3, BreakKind::Edited)),
    );
    assert!(report.broken.unwrap().to_string().contains("ws.jsonl:3: edited:"));
}

#[test]
fn verify_finds_an_edited_last_line_through_the_head() {
    check(
        |log| {
            let mut lines = log.lines();
            edit(&mut lines, 5);
            log.write_lines(&lines);
        },
        Some((5, BreakKind::Edited)),
    );
}

#[test]
fn verify_finds_a_removed_line() {
    let report = check(
        |log| {
            let mut lines = log.lines();
            lines.remove(2);
            log.write_lines(&lines);
        },
        Some((3, BreakKind::Removed)),
    );
    assert!(report.broken.unwrap().detail.contains("1 line(s) removed"));
}

#[test]
fn verify_finds_the_first_line_removed_from_a_log_never_rotated() {
    check(
        |log| {
            let lines = log.lines();
            log.write_lines(&lines[1..]);
        },
        Some((1, BreakKind::Removed)),
    );
}

#[test]
fn verify_finds_lines_cut_off_the_end() {
    let report = check(
        |log| {
            let lines = log.lines();
            log.write_lines(&lines[..3]);
        },
        Some((4, BreakKind::CutOff)),
    );
    assert!(report.broken.unwrap().detail.contains("2 line(s) cut off the end"), "the detail counts them");
}

#[test]
fn verify_finds_a_log_cut_mid_line() {
    check(
        |log| {
            let text = fs::read(&log.path).unwrap();
            fs::write(&log.path, &text[..text.len() - 20]).unwrap();
        },
        Some((5, BreakKind::CutOff)),
    );
}

#[test]
fn a_cut_stays_visible_after_the_next_append() {
    // The appender takes `prev` from the head, so a line written after a cut still points at the cut line.
    let report = check(
        |log| {
            let lines = log.lines();
            log.write_lines(&lines[..3]);
            log.append(6..=6);
        },
        Some((4, BreakKind::Removed)),
    );
    assert!(report.broken.unwrap().detail.contains("2 line(s) removed"));
}

#[test]
fn verify_finds_swapped_lines() {
    check(
        |log| {
            let mut lines = log.lines();
            lines.swap(1, 2);
            log.write_lines(&lines);
        },
        Some((2, BreakKind::Reordered)),
    );
}

#[test]
fn verify_finds_a_forged_line_inserted_with_a_valid_link() {
    check(
        |log| {
            let mut lines = log.lines();
            let forged = serde_json::json!({"seq": 3, "prev": hex::encode(Sha256::digest(lines[1].as_bytes()))});
            let mut forged_line: serde_json::Value = serde_json::to_value(receipt(99)).unwrap();
            forged_line.as_object_mut().unwrap().extend(forged.as_object().unwrap().clone());
            lines.insert(2, forged_line.to_string());
            log.write_lines(&lines);
        },
        Some((3, BreakKind::Inserted)),
    );
}

#[test]
fn verify_finds_a_line_that_is_not_a_receipt() {
    check(
        |log| {
            let mut lines = log.lines();
            lines[1] = "not json".into();
            log.write_lines(&lines);
        },
        Some((2, BreakKind::Malformed)),
    );
}

#[test]
fn verify_finds_a_missing_head_and_the_next_append_recovers_it_from_the_log() {
    check(|log| fs::remove_file(log.head()).unwrap(), Some((6, BreakKind::Head)));
    // Without a key the head is only a cache of the last line: whoever can delete it could rewrite it as well.
    check(
        |log| {
            fs::remove_file(log.head()).unwrap();
            log.append(6..=6);
        },
        None,
    );
}

#[test]
fn with_a_key_a_missing_head_is_not_recovered_and_the_restart_stays_visible() {
    // With a key, recovering would let someone hide a cut by deleting the head too.
    let log = Log::new(5, keyed());
    fs::remove_file(log.head()).unwrap();
    log.append(6..=6);
    let broken = verify(&log.path, Some(KEY)).unwrap().broken.unwrap();
    assert_eq!((broken.line, broken.kind), (6, BreakKind::Restarted));
}

/// Puts back the head as it was after `n` lines: what a kill between the append and the head's update, a failed
/// rename or a full disk leaves.
fn stale_head(options: FileSinkOptions, key: Option<&[u8]>) {
    let log = Log::new(3, options);
    let head_after_3 = fs::read(log.head()).unwrap();
    log.append(4..=5);
    fs::write(log.head(), head_after_3).unwrap();
    assert!(verify(&log.path, key).unwrap().is_intact(), "a stale head is a cache that lags, not damage");
    log.append(6..=7);
    let report = verify(&log.path, key).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    let seqs: Vec<u64> = log
        .lines()
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn a_stale_head_after_an_unfinished_append_forked_the_chain() {
    stale_head(FileSinkOptions::default(), None);
}

#[test]
fn with_a_key_a_stale_head_after_an_unfinished_append_forked_the_chain() {
    stale_head(keyed(), Some(KEY));
}

#[test]
fn a_head_that_could_not_be_replaced_forked_the_chain() {
    let log = Log::new(3, FileSinkOptions::default());
    // A directory where the head goes: reading it fails and renaming onto it fails, as a broken disk would.
    fs::remove_file(log.head()).unwrap();
    fs::create_dir(log.head()).unwrap();
    assert!(log.sink.record(&receipt(4)).is_err(), "the head could not be written: reported");
    assert!(log.sink.record(&receipt(5)).is_err());
    fs::remove_dir(log.head()).unwrap();
    log.append(6..=6);
    let report = verify(&log.path, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!(report.lines, 6);
}

#[test]
fn an_edit_of_the_last_line_is_still_caught_after_the_next_append() {
    for (options, key) in [(FileSinkOptions::default(), None), (keyed(), Some(KEY))] {
        let log = Log::new(5, options);
        let mut lines = log.lines();
        edit(&mut lines, 5);
        log.write_lines(&lines);
        log.append(6..=6);
        let report = verify(&log.path, key).unwrap();
        assert!(!report.is_intact(), "keyed {}: {report:#?}", key.is_some());
    }
}

#[test]
fn a_symlink_planted_at_the_logs_place_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious");
    fs::write(&target, "keep me\n").unwrap();
    let path = dir.path().join("log.jsonl");
    std::os::unix::fs::symlink(&target, &path).unwrap();
    let sink = FileSink::new(&path);
    assert!(sink.record(&receipt(1)).is_err());
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me\n");
}

#[test]
fn verify_of_no_log_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let err = verify(&dir.path().join("none.jsonl"), None).unwrap_err();
    assert!(matches!(err, VerifyError::NotFound { .. }));
    assert!(err.to_string().contains("none.jsonl"), "{err}");
}

#[test]
fn rotation_keeps_one_chain_across_segments() {
    let options = FileSinkOptions { max_bytes: 2_000, max_rotated: 100, ..FileSinkOptions::default() };
    let log = Log::new(40, options);
    let report = verify(&log.path, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!((report.lines, report.first_seq), (40, Some(1)));
    assert!(report.segments.len() > 3, "{:?}", report.segments);
    for segment in &report.segments {
        assert!(fs::metadata(segment).unwrap().len() <= 2_000, "{segment:?} is over max_bytes");
    }
    // The fresh live log's first line continues the chain from the newest rotated segment.
    let rotated = fs::read_to_string(sidecar(&log.path, ".1")).unwrap();
    let first_live: serde_json::Value = serde_json::from_str(&log.lines()[0]).unwrap();
    assert_eq!(first_live["prev"], hex::encode(Sha256::digest(rotated.lines().last().unwrap().as_bytes())));

    // Damage in a rotated segment is found there.
    let second = sidecar(&log.path, ".2");
    let text = fs::read_to_string(&second).unwrap().replacen("project.guard-", "project.guarD-", 1);
    fs::write(&second, text).unwrap();
    let broken = verify(&log.path, None).unwrap().broken.unwrap();
    assert_eq!((broken.path, broken.line, broken.kind), (second, 1, BreakKind::Edited));
}

#[test]
fn rotation_drops_the_oldest_segments_and_verify_reports_where_the_chain_now_starts() {
    let options = FileSinkOptions { max_bytes: 2_000, max_rotated: 2, ..FileSinkOptions::default() };
    let log = Log::new(40, options);
    let report = verify(&log.path, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    assert_eq!(report.segments.len(), 3);
    assert!(report.first_seq.unwrap() > 1 && report.lines < 40);
    assert_eq!(report.first_seq.unwrap() + report.lines - 1, 40, "the kept lines run on to the newest");
}

fn keyed() -> FileSinkOptions {
    FileSinkOptions { key: Some(HostKey::new(KEY)), ..FileSinkOptions::default() }
}

#[test]
fn keyed_log_verifies_only_with_its_key() {
    let log = Log::new(5, keyed());
    let report = verify(&log.path, Some(KEY)).unwrap();
    assert!(report.is_intact() && report.sealed, "{report:#?}");
    assert!(matches!(verify(&log.path, None), Err(VerifyError::KeyRequired { .. })));
    let broken = verify(&log.path, Some(b"another key")).unwrap().broken.unwrap();
    assert_eq!((broken.line, broken.kind), (1, BreakKind::Edited));
    assert!(broken.detail.contains("another"), "{}", broken.detail);
}

/// Rewrites every `prev` and the head with plain sha256 after `tamper`: what someone who can write both files does.
fn rewrite_chain(log: &Log, tamper: impl FnOnce(&mut Vec<String>)) {
    let mut lines = log.lines();
    tamper(&mut lines);
    let mut prev = "0".repeat(64);
    let mut seq = 0;
    for line in &mut lines {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        value["prev"] = prev.clone().into();
        seq = value["seq"].as_u64().unwrap();
        *line = serde_json::to_string(&value).unwrap();
        prev = hex::encode(Sha256::digest(line.as_bytes()));
    }
    log.write_lines(&lines);
    fs::write(log.head(), format!("{prev} {seq}\n")).unwrap();
}

#[test]
fn without_a_key_a_rewrite_of_both_files_passes_as_the_threat_model_says() {
    let log = Log::new(5, FileSinkOptions::default());
    rewrite_chain(&log, |lines| edit(lines, 2));
    assert!(verify(&log.path, None).unwrap().is_intact());
}

#[test]
fn with_a_key_a_rewrite_of_both_files_is_found() {
    let log = Log::new(5, keyed());
    rewrite_chain(&log, |lines| edit(lines, 2));
    let report = verify(&log.path, Some(KEY)).unwrap();
    assert!(!report.is_intact(), "{report:#?}");
}

#[test]
fn with_a_key_a_cut_with_a_forged_head_is_found() {
    // Cutting the end and setting the head to the link the first cut line recorded would pass an unkeyed head;
    // the keyed head's seal cannot be forged.
    let log = Log::new(5, keyed());
    let lines = log.lines();
    let fourth: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
    log.write_lines(&lines[..3]);
    fs::write(log.head(), format!("{} 3 {}\n", fourth["prev"].as_str().unwrap(), "a".repeat(64))).unwrap();
    let broken = verify(&log.path, Some(KEY)).unwrap().broken.unwrap();
    assert_eq!((broken.line, broken.kind), (4, BreakKind::Head));
}

#[test]
fn a_batch_is_one_run_of_linked_lines() {
    let log = Log::new(2, FileSinkOptions::default());
    let batch: Vec<_> = (3..=6).map(receipt).collect();
    log.sink.record_batch(&batch).unwrap();
    log.append(7..=7);
    let report = verify(&log.path, None).unwrap();
    assert!(report.is_intact(), "{report:#?}");
    let ids: Vec<String> =
        hook_middleware::receipts::tail(&log.path, 5).unwrap().into_iter().map(|r| r.hook_id).collect();
    assert_eq!(ids, (3..=7).map(|i| format!("project.guard-{i}")).collect::<Vec<_>>());
}

#[test]
fn a_line_left_unfinished_by_a_crashed_writer_is_dropped_and_the_chain_runs_on() {
    // Nothing links to an unfinished line after the chain's end: it is an append of ours that was cut short.
    check(
        |log| {
            let mut file = fs::OpenOptions::new().append(true).open(&log.path).unwrap();
            std::io::Write::write_all(&mut file, br#"{"seq":6,"time":"2026"#).unwrap();
            log.append(6..=6);
        },
        None,
    );
}

#[test]
fn an_unfinished_line_after_a_cut_stays_on_its_own_line() {
    // The head records more than the log holds: not ours to tidy; the damage stays visible.
    check(
        |log| {
            let text = fs::read_to_string(&log.path).unwrap();
            fs::write(&log.path, &text[..text.len() - 10]).unwrap();
            log.append(6..=6);
        },
        Some((5, BreakKind::Malformed)),
    );
}

#[test]
fn forged_extreme_seqs_and_an_emptied_log_are_reported_not_panicked_on() {
    check(
        |log| {
            let mut lines = log.lines();
            lines[0] = lines[0].replacen(r#""seq":1"#, r#""seq":0"#, 1);
            lines[2] = lines[2].replacen(r#""seq":3"#, &format!(r#""seq":{}"#, u64::MAX), 1);
            log.write_lines(&lines);
        },
        Some((1, BreakKind::Edited)),
    );
    check(
        |log| {
            fs::write(log.head(), format!("{} {}\n", "a".repeat(64), u64::MAX)).unwrap();
            log.append(6..=6);
        },
        Some((6, BreakKind::Removed)),
    );
    check(|log| fs::write(&log.path, "").unwrap(), Some((1, BreakKind::CutOff)));
}

#[test]
fn the_head_is_rewritten_in_place_and_a_longer_stale_one_is_cut_to_size() {
    let log = Log::new(3, FileSinkOptions::default());
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let before = inode(&log.head());
    // A head longer than the one the next append writes (stale, with trailing blanks): the rewrite must leave
    // exactly the new head, not the new one followed by the old one's tail.
    let lines = log.lines();
    let third = hex::encode(Sha256::digest(lines[2].as_bytes()));
    fs::write(log.head(), format!("{third} 3\n{}\n", " ".repeat(200))).unwrap();
    log.append(4..=4);
    let fourth = hex::encode(Sha256::digest(log.lines()[3].as_bytes()));
    assert_eq!(fs::read_to_string(log.head()).unwrap(), format!("{fourth} 4\n"));
    assert_eq!(inode(&log.head()), before, "the same file, written in place");
    assert!(verify(&log.path, None).unwrap().is_intact());
}

#[test]
fn a_symlink_planted_at_the_heads_place_is_replaced_not_followed() {
    let log = Log::new(2, FileSinkOptions::default());
    let target = log._dir.path().join("precious");
    fs::write(&target, "keep me\n").unwrap();
    let head = fs::read_to_string(log.head()).unwrap();
    fs::remove_file(log.head()).unwrap();
    std::os::unix::fs::symlink(&target, log.head()).unwrap();
    log.append(3..=3);
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me\n");
    assert!(fs::symlink_metadata(log.head()).unwrap().file_type().is_file(), "a file of its own again");
    assert_ne!(fs::read_to_string(log.head()).unwrap(), head);
    assert!(verify(&log.path, None).unwrap().is_intact());
}
