//! Criterion's figures of the library benches (`cargo bench -p hook-exec`, `-p hook-middleware --bench pipeline`,
//! `-p hook-config --bench load`), read from `target/criterion`, each beside its baseline from the same run.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::Row;

/// One bench's point estimate (the slope where criterion fits one, else the mean), by its full id.
fn estimates(dir: &Path) -> Vec<(String, Duration)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "new") {
                    if let Some(found_one) = read(&path) {
                        found.push(found_one);
                    }
                } else if path.file_name().is_none_or(|n| n != "report" && n != "base" && n != "change") {
                    stack.push(path);
                }
            }
        }
    }
    found
}

fn read(new: &Path) -> Option<(String, Duration)> {
    let bench: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(new.join("benchmark.json")).ok()?).ok()?;
    let est: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(new.join("estimates.json")).ok()?).ok()?;
    let ns = est["slope"]["point_estimate"].as_f64().or_else(|| est["mean"]["point_estimate"].as_f64())?;
    Some((bench["full_id"].as_str()?.to_string(), Duration::from_secs_f64(ns / 1e9)))
}

/// The rows: each figure with its baseline, where both were measured; a pair with a side missing is left out (run
/// with `--criterion`, or the benches by hand, to have them all).
pub fn rows(dir: &Path) -> Result<Vec<Row>> {
    let found = estimates(dir);
    let get = |id: &str| found.iter().find(|(full, _)| full == id).map(|(_, d)| *d);
    let pairs: [(&str, &str, &str, &str, f64, &str); 8] = [
        (
            "hook-exec: `/bin/true`",
            "true/hook_exec",
            "`Command::spawn().wait()`",
            "true/std_spawn_wait",
            1.0,
            "≤ 1.15×",
        ),
        (
            "hook-exec: `/bin/cat`, 1 KiB piped",
            "cat_1k/hook_exec",
            "std spawn, pipes",
            "cat_1k/std_piped",
            1.0,
            "≤ 1.15×",
        ),
        (
            "pipeline: no match, 100 hooks on other events",
            "dispatch/no match, 100 hooks on other events",
            "`block_on(ready)`",
            "dispatch/baseline: block_on(ready)",
            1.0,
            "0 allocations (test)",
        ),
        (
            "pipeline: 8 command hooks (`/bin/true`)",
            "dispatch/8 command hooks (/bin/true)",
            "1 command hook",
            "dispatch/1 command hook (/bin/true)",
            1.0,
            "",
        ),
        (
            "pipeline: 8 command hooks (`sleep 0.3`)",
            "dispatch/8 command hooks (sleep 0.3)",
            "one `sleep 0.3` (300 ms)",
            "",
            0.3,
            "≈ one",
        ),
        ("hook-config: load 10 000 hooks", "10k_hooks/load", "parse alone", "10k_hooks/parse_alone", 1.0, "≤ 3×"),
        ("hook-config: load 10 000 hooks", "load_scaling/10000", "load 1 000, ×10", "load_scaling/1000", 10.0, ""),
        ("hook-config: load 100 000 hooks", "load_scaling/100000", "load 1 000, ×100", "load_scaling/1000", 100.0, ""),
    ];
    let mut rows = Vec::new();
    for (what, id, baseline, base_id, scale, target) in pairs {
        let Some(figure) = get(id) else { continue };
        let base = if base_id.is_empty() { Some(Duration::from_secs_f64(scale)) } else { get(base_id) };
        let Some(base) = base else { continue };
        // A per-hook row compares the time per hook: the baseline scaled to the same count.
        let base = if base_id.is_empty() { base } else { base.mul_f64(scale) };
        rows.push(Row {
            what: format!("{what} (criterion)"),
            wall: figure,
            cpu: None,
            note: String::new(),
            baseline: baseline.into(),
            base_wall: base,
            base_cpu: None,
            target: target.into(),
        });
    }
    Ok(rows)
}
