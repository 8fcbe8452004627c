//! Loading cost (issue 4): `load` (discovery, parsing, normalization, hashing, fingerprints, trust, merge) of 10 000
//! hooks spread over the five origins, against parsing the same YAML files alone with serde_norway; and how `load`
//! scales from 1 000 to 100 000 hooks.
//!
//! Run: `cargo bench -p hook-config --bench load`. Besides criterion's own figures it prints, from one paired run
//! (the two measured alternately, median of several rounds), the ratio load ÷ parse-alone at 10 000 hooks, and the
//! time per hook of both at 1 000, 10 000 and 100 000 hooks: parse alone is the yardstick for what a larger input
//! costs the machine (caches, page faults, the allocator), so load's scaling is read against it.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::fs;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hook_config::{FileContext, Format, Layout, LoadOptions, load, load_file};
use hook_types::Origin;

/// A generated workspace: its layout and the YAML files it holds.
struct Fixture {
    _dir: tempfile::TempDir,
    layout: Layout,
    files: Vec<PathBuf>,
}

/// One hook of each kind in turn; every tenth id repeats across origins so the merge has collisions to resolve.
fn hook_yaml(origin: usize, i: usize) -> String {
    let id = if i.is_multiple_of(10) { format!("shared-{i}") } else { format!("o{origin}-h{i}") };
    match i % 4 {
        0 => format!(
            "- id: {id}\n  on: pre_tool\n  tools: [shell]\n  kind: command\n  argv: [./scripts/guard.sh, --strict]\n  timeout_ms: 1500\n"
        ),
        1 => format!(
            "- id: {id}\n  on: post_tool\n  matcher: \"Edit|Write\"\n  kind: command\n  shell: \"$HOOK_PROJECT_DIR/scripts/fmt.sh --check\"\n  env: {{ MODE: fast }}\n"
        ),
        2 => format!(
            "- id: {id}\n  on: turn_start\n  kind: prompt\n  message: \"Run the tests before you commit ({i}).\"\n"
        ),
        _ => format!(
            "- id: {id}\n  on: pre_tool\n  matcher: \"^mcp__.*\"\n  kind: effect\n  effect: {{ kind: block_tool, reason: \"no MCP here ({i})\" }}\n"
        ),
    }
}

/// `total` hooks, a fifth in each origin's native file.
fn fixture(total: usize) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let workspace = root.join("ws");
    let ext = root.join("ext/lint");
    let config_home = root.join("config/hooks");
    let managed = root.join("policy/hooks.yaml");
    let files = vec![
        ext.join("hooks.yaml"),
        config_home.join("hooks.yaml"),
        workspace.join(".hooks/hooks.yaml"),
        workspace.join(".hooks/hooks.local.yaml"),
        managed.clone(),
    ];
    for script in ["scripts/guard.sh", "scripts/fmt.sh"] {
        for base in [&workspace, &ext, &config_home, &root.join("policy")] {
            fs::create_dir_all(base.join("scripts")).unwrap();
            fs::write(base.join(script), "#!/bin/sh\nexit 0\n").unwrap();
            // Runnable, as a hook's program must be (a program without its run bit is an error that drops the hook).
            fs::set_permissions(base.join(script), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
    }
    let per_file = total / files.len();
    for (origin, file) in files.iter().enumerate() {
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        let text: String = (0..per_file).map(|i| hook_yaml(origin, i)).collect();
        fs::write(file, text).unwrap();
    }
    let layout = Layout::new(&workspace)
        .with_home(None)
        .with_config_home(&config_home)
        .with_managed_file(&managed)
        .with_extension_root(&ext);
    Fixture { _dir: dir, layout, files }
}

fn load_all(layout: &Layout) -> usize {
    let config = load(layout, &LoadOptions::default()).expect("the generated workspace loads");
    config.hooks.len() + config.overridden.len() + config.shadowed.len()
}

/// The floor: reading and parsing the same files into a YAML value tree, nothing else.
fn parse_alone(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|file| {
            let text = fs::read_to_string(file).unwrap();
            let value: serde_norway::Value = serde_norway::from_str(&text).unwrap();
            value.as_sequence().map_or(0, Vec::len)
        })
        .sum()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Part 1 alone: each file read, parsed, normalized and hashed by `load_file`, without discovery, fingerprints,
/// trust or merge.
fn read_files(fixture: &Fixture) -> usize {
    let workspace = fs::canonicalize(&fixture.layout.workspace).unwrap();
    let origins = [Origin::Extension, Origin::User, Origin::Project, Origin::ProjectLocal, Origin::Managed];
    fixture
        .files
        .iter()
        .zip(origins)
        .map(|(file, origin)| {
            let root = if matches!(origin, Origin::Project | Origin::ProjectLocal) {
                workspace.clone()
            } else {
                file.parent().unwrap().to_path_buf()
            };
            let cx = FileContext { origin, workspace: &workspace, root: &root, source_id: None };
            load_file(file, Format::Native, &cx).hooks.len()
        })
        .sum()
}

/// The ratio from one paired run: the two measured alternately so machine noise hits both alike.
fn print_ratio(fixture: &Fixture) {
    let (mut loads, mut parses, mut files) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..7 {
        let start = Instant::now();
        black_box(load_all(&fixture.layout));
        loads.push(start.elapsed());
        let start = Instant::now();
        black_box(parse_alone(&fixture.files));
        parses.push(start.elapsed());
        let start = Instant::now();
        black_box(read_files(fixture));
        files.push(start.elapsed());
    }
    let (load, parse, files) = (median(loads), median(parses), median(files));
    println!(
        "paired run, 10 000 hooks: load {load:.2?}, parse alone {parse:.2?}, ratio {:.2}× (target ≤ 3×); \
         of the load, load_file of the five files (parse + normalize + hash) {files:.2?} = {:.2}× parse alone",
        load.as_secs_f64() / parse.as_secs_f64(),
        files.as_secs_f64() / parse.as_secs_f64()
    );
}

fn load_vs_parse(c: &mut Criterion) {
    let fixture = fixture(10_000);
    assert_eq!(parse_alone(&fixture.files), 10_000);
    assert!(load_all(&fixture.layout) >= 10_000 * 9 / 10, "the hooks load (not all skipped as issues)");
    print_ratio(&fixture);
    let mut group = c.benchmark_group("10k_hooks");
    group.sample_size(10);
    group.bench_function("load", |b| b.iter(|| black_box(load_all(&fixture.layout))));
    group.bench_function("parse_alone", |b| b.iter(|| black_box(parse_alone(&fixture.files))));
    group.finish();
}

/// Time per hook of load and of parse alone at each size, from one paired run per size (medians of alternating
/// rounds), and how each grows from one size to the next.
fn print_scaling() {
    let mut previous: Option<(usize, f64, f64)> = None;
    for total in [1_000, 10_000, 100_000] {
        let fixture = fixture(total);
        let rounds = if total >= 100_000 { 3 } else { 7 };
        let (mut loads, mut parses) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let start = Instant::now();
            black_box(load_all(&fixture.layout));
            loads.push(start.elapsed());
            let start = Instant::now();
            black_box(parse_alone(&fixture.files));
            parses.push(start.elapsed());
        }
        let per_hook = |d: Duration| d.as_secs_f64() * 1e6 / total as f64;
        let (load, parse) = (per_hook(median(loads)), per_hook(median(parses)));
        let growth = previous.map_or(String::new(), |(n, l, p)| {
            let times = (total / n) as f64;
            format!("; ×{:.1} load, ×{:.1} parse alone for ×{times:.0} hooks", load * times / l, parse * times / p)
        });
        println!(
            "paired run, {total} hooks: load {load:.1} µs/hook, parse alone {parse:.1} µs/hook, ratio {:.2}×{growth}",
            load / parse
        );
        previous = Some((total, load, parse));
    }
}

fn scaling(c: &mut Criterion) {
    print_scaling();
    let mut group = c.benchmark_group("load_scaling");
    // 100 000 hooks take seconds per load on a 2-core machine: criterion's minimum of 10 samples keeps the run short.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for total in [1_000, 10_000, 100_000] {
        let fixture = fixture(total);
        group.throughput(criterion::Throughput::Elements(total as u64));
        group.bench_with_input(BenchmarkId::from_parameter(total), &fixture, |b, f| {
            b.iter(|| black_box(load_all(&f.layout)))
        });
    }
    group.finish();
}

criterion_group!(benches, load_vs_parse, scaling);
criterion_main!(benches);
