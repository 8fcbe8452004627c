//! The cost of reading a shell command per call, against the regular expression guard it replaces.
//!
//! Run: `cargo bench -p hook-shell --bench parse`. Over the lines of the table (`tests/it/table.txt`, 250 lines from
//! `ls -la` to here-documents and nested `bash -c`), three per-line costs: a force-push regular expression of the
//! kind guards use today (`regex`, compiled once), `hook_shell::parse` alone, and `parse` plus a `command:` pattern
//! test, which is what a guard with a `command:` matcher pays per call. Besides criterion's figures it prints the
//! mean per line of each from one paired run (the three measured alternately, median of rounds), and the
//! distribution over the lines of parse-and-decide (the pattern and an allow-list's `covers`), line by line.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hook_shell::{CommandPattern, Limits, parse};
use regex::Regex;

const TABLE: &str = include_str!("../tests/it/table.txt");

fn lines() -> Vec<String> {
    TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|row| row.split('\t').next().unwrap_or_default().replace("\\n", "\n"))
        .collect()
}

/// The regex a force-push guard greps with (the guide's own before `command:`, widened to `-f`).
fn regex_guard() -> Regex {
    Regex::new(r"git\s+push\b[^;&|]*\s(--force|-f\b|--force-with-lease)").unwrap()
}

fn pattern() -> CommandPattern {
    CommandPattern::new("git", &["push", "--force|-f|--force-with-lease*|+*"]).unwrap()
}

fn benches(c: &mut Criterion) {
    let lines = lines();
    let regex = regex_guard();
    let pattern = pattern();
    let limits = Limits::default();
    let mut group = c.benchmark_group("per line (all table lines)");
    group.bench_function("regex guard", |b| b.iter(|| lines.iter().filter(|l| regex.is_match(black_box(l))).count()));
    group.bench_function("parse", |b| {
        b.iter(|| lines.iter().map(|l| parse(black_box(l), &limits).commands.len()).sum::<usize>())
    });
    group.bench_function("parse + command: pattern", |b| {
        b.iter(|| lines.iter().filter(|l| pattern.test(&parse(black_box(l), &limits)) != hook_shell::Match::No).count())
    });
    group.finish();
    paired(&lines, &regex, &pattern);
    per_line_distribution(&lines, &pattern);
}

/// Parse and decide, line by line: each line read and tested against the force-push pattern and an allow-list
/// (`hook_shell::covers`, what an approver pays) 41 times, its median kept; then the median, 90th percentile and
/// maximum over the lines.
fn per_line_distribution(lines: &[String], pattern: &CommandPattern) {
    let limits = Limits::default();
    let allowed = [
        hook_shell::Allowed { pattern: CommandPattern::new("ls|cat|head|grep|pwd", &[]).unwrap(), writes: false },
        hook_shell::Allowed { pattern: CommandPattern::new("git", &["status|log|diff"]).unwrap(), writes: false },
    ];
    let mut medians: Vec<Duration> = lines
        .iter()
        .map(|line| {
            let mut times: Vec<Duration> = (0..41)
                .map(|_| {
                    let start = Instant::now();
                    let analysis = parse(black_box(line), &limits);
                    black_box(pattern.test(&analysis));
                    black_box(hook_shell::covers(&allowed, &analysis));
                    start.elapsed()
                })
                .collect();
            times.sort();
            times[times.len() / 2]
        })
        .collect();
    medians.sort();
    let at = |q: f64| medians[((medians.len() - 1) as f64 * q).round() as usize];
    println!(
        "parse and decide, per line over {} lines: median {:?}, p90 {:?}, max {:?}",
        medians.len(),
        at(0.5),
        at(0.9),
        at(1.0)
    );
}

/// One paired run: the three alternately, 15 rounds, the median round's time per line of each.
fn paired(lines: &[String], regex: &Regex, pattern: &CommandPattern) {
    let limits = Limits::default();
    let mut rounds: [Vec<Duration>; 3] = Default::default();
    for _ in 0..15 {
        let start = Instant::now();
        black_box(lines.iter().filter(|l| regex.is_match(l)).count());
        rounds[0].push(start.elapsed());
        let start = Instant::now();
        black_box(lines.iter().map(|l| parse(l, &limits).commands.len()).sum::<usize>());
        rounds[1].push(start.elapsed());
        let start = Instant::now();
        black_box(lines.iter().filter(|l| pattern.test(&parse(l, &limits)) != hook_shell::Match::No).count());
        rounds[2].push(start.elapsed());
    }
    let per_line = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2] / u32::try_from(lines.len()).unwrap_or(u32::MAX)
    };
    let [regex_times, parse_times, pattern_times] = &mut rounds;
    println!(
        "paired, per line over {} lines: regex guard {:?}, parse {:?}, parse + pattern {:?}",
        lines.len(),
        per_line(regex_times),
        per_line(parse_times),
        per_line(pattern_times)
    );
}

criterion_group! {
    name = parse_benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(parse_benches);
