//! `cargo xtask bench`: the whole-process figures of the `hook` binary, each beside the baseline it is judged
//! against, measured in the same run (interleaved, medians): per event, then loading — hook-config's `load` example
//! (a host's load, bounds raised) and `hook validate`, `hook inspect` and a bridge call themselves (`cli`) — then
//! criterion's figures of the library benches; and `cargo xtask bench-clio PATH`: clio-coder's own loader beside
//! ours on the same generated hooks.
//!
//! Nothing here runs under `cargo test` or `.ci/run`. The release binary is built first (`cargo xtask dist`)
//! unless `--hook PATH` names one. Everything is written under `<target dir>/bench/`, emptied at the start:
//! the generated workspaces, and `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME` for the measured processes, so no
//! run reads or writes the user's own files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

mod cli;
mod clio;
mod criterion;
mod generate;
mod measure;

use generate::Shape;
use measure::{Cmd, Medians, interleaved, median, ms};

/// Options shared by both tasks.
#[derive(Debug)]
struct Options {
    hook: Option<PathBuf>,
    runs: usize,
    sizes: Vec<usize>,
    load_runs: Option<usize>,
    criterion: bool,
    clio: Option<PathBuf>,
    /// `--per-event`: only the per-event rows (about 20 s instead of 3 min), for A/B runs of the start path.
    per_event_only: bool,
    /// `--against PATH`: another `hook` binary whose per-event rows are measured in the same rounds (an A/B).
    against: Option<PathBuf>,
}

/// A binary named on the command line, made absolute: the measured commands run in the scratch directory, where a
/// relative path would name nothing.
fn binary(flag: &str, path: String) -> Result<PathBuf> {
    fs::canonicalize(&path).with_context(|| format!("{flag} {path}: no such binary (give the path of a built `hook`)"))
}

fn parse(args: &[String], clio: bool) -> Result<Options> {
    let mut options = Options {
        hook: None,
        runs: 40,
        sizes: vec![1_000, 10_000, 100_000],
        load_runs: None,
        criterion: false,
        clio: None,
        per_event_only: false,
        against: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().cloned().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--hook" => options.hook = Some(binary("--hook", value("--hook")?)?),
            "--runs" => options.runs = value("--runs")?.parse().context("--runs takes a number")?,
            "--load-runs" => {
                options.load_runs = Some(value("--load-runs")?.parse().context("--load-runs takes a number")?)
            }
            "--sizes" => {
                options.sizes = value("--sizes")?
                    .split(',')
                    .map(|s| s.trim().parse().context("--sizes takes numbers separated by commas"))
                    .collect::<Result<_>>()?;
            }
            "--criterion" if !clio => options.criterion = true,
            "--per-event" if !clio => options.per_event_only = true,
            "--against" if !clio => options.against = Some(binary("--against", value("--against")?)?),
            path if clio && options.clio.is_none() && !path.starts_with("--") => {
                options.clio = Some(PathBuf::from(path))
            }
            other => bail!("unknown argument `{other}`"),
        }
    }
    if options.runs == 0 || options.sizes.is_empty() {
        bail!("--runs and --sizes must not be empty or zero");
    }
    Ok(options)
}

/// The measured processes' environment and the scratch directory.
struct Scratch {
    dir: PathBuf,
    hook: PathBuf,
    /// The release build of hook-config's `load` example: a host's load with the bounds raised.
    loader: PathBuf,
}

impl Scratch {
    fn new(root: &Path, options: &Options, name: &str) -> Result<Scratch> {
        let target = crate::dist::target_dir(root)?;
        let dir = target.join("bench").join(name);
        let _ = fs::remove_dir_all(&dir);
        for sub in ["home", "config", "state"] {
            fs::create_dir_all(dir.join(sub)).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let hook = match &options.hook {
            Some(path) => path.clone(),
            // What `cargo xtask dist` builds: the binary users install.
            None => crate::dist::build(root)?,
        };
        if !options.per_event_only {
            crate::run(root, "cargo", &["build", "--release", "-p", "hook-config", "--example", "load"], &[])?;
        }
        Ok(Scratch { dir, hook, loader: target.join("release/examples/load") })
    }

    /// `hook ARGS…` in the scratch environment.
    fn hook(&self, args: &[&str]) -> Cmd {
        self.hook_in(args, &self.dir.join("state"))
    }

    /// `hook ARGS…` with its own state directory.
    fn hook_in(&self, args: &[&str], state: &Path) -> Cmd {
        Cmd::new(&self.hook, args).envs(&[
            ("HOME", &self.dir.join("home")),
            ("XDG_CONFIG_HOME", &self.dir.join("config")),
            ("XDG_STATE_HOME", state),
        ])
    }

    /// Runs a `hook` command once and returns its stdout, failing unless its exit code is one of `ok`.
    fn output(&self, cmd: &Cmd) -> Result<String> {
        let mut command = Command::new(&cmd.program);
        command.args(&cmd.args).envs(cmd.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &cmd.cwd {
            command.current_dir(dir);
        }
        let output = match &cmd.stdin {
            Some(bytes) => {
                use std::io::Write;
                let mut child = command
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()?;
                child.stdin.take().context("no stdin")?.write_all(bytes)?;
                child.wait_with_output()?
            }
            None => command.output()?,
        };
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.code().is_some_and(|c| cmd.ok_codes.contains(&c)) {
            bail!(
                "`{} {}` failed ({}): {}{}",
                cmd.program.display(),
                cmd.args.join(" "),
                output.status,
                stdout,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(stdout)
    }
}

/// One row of the table: a figure (wall time, and CPU time where measured) beside its baseline.
struct Row {
    what: String,
    wall: Duration,
    cpu: Option<Duration>,
    /// Anything else the row says (per hook, peak memory).
    note: String,
    baseline: String,
    base_wall: Duration,
    base_cpu: Option<Duration>,
    target: String,
}

impl Row {
    fn measured(what: &str, m: Medians, baseline: &str, base: Medians, target: &str) -> Row {
        Row {
            what: what.into(),
            wall: m.wall,
            cpu: Some(m.cpu),
            note: String::new(),
            baseline: baseline.into(),
            base_wall: base.wall,
            base_cpu: Some(base.cpu),
            target: target.into(),
        }
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-12)
}

/// `cargo xtask bench`.
pub fn run(args: &[String], root: &Path) -> Result<()> {
    let options = parse(args, false)?;
    let scratch = Scratch::new(root, &options, "table")?;
    // From here on, what a measured command leaves running is counted with it (its orphans come to us).
    crate::adopt_orphans();
    let mut rows = Vec::new();
    per_event(&scratch, &options, &mut rows)?;
    if options.per_event_only {
        let table = render(&rows);
        println!("{table}");
        return Ok(());
    }
    loading(&scratch, &options, &mut rows)?;
    cli::rows(&scratch, &options, &mut rows)?;
    if options.criterion {
        for (package, bench) in [("hook-exec", "spawn"), ("hook-middleware", "pipeline"), ("hook-config", "load")] {
            crate::run(root, "cargo", &["bench", "-p", package, "--bench", bench], &[])?;
        }
    }
    rows.extend(criterion::rows(&crate::dist::target_dir(root)?.join("criterion"))?);
    let table = render(&rows);
    fs::write(scratch.dir.join("table.md"), &table)?;
    println!("{table}");
    eprintln!("xtask: the table is also in {}", scratch.dir.join("table.md").display());
    Ok(())
}

/// `/bin/true`, `hook --version`, one bridge call and one `hook run` of a `PreToolUse` on the 20-hook workspace, and
/// one bridge call on the policy workspace with `RUST_BACKTRACE` unset (`0`) and set (`1`), interleaved.
fn per_event(scratch: &Scratch, options: &Options, rows: &mut Vec<Row>) -> Result<()> {
    let ws = event_workspace(scratch)?;
    let policy_ws = policy_workspace(scratch)?;
    let ws_arg = ws.display().to_string();
    let truth = Cmd::new("/bin/true", &[]);
    let commands = |binary: &Path| event_commands(scratch, &ws, &policy_ws, binary);
    // Both binaries are measured from copies written now, one after the other: how a file's pages came into the
    // page cache changes what a process start of it costs (the same `hook --version` read 1.00x and 1.15x from two
    // files of equal code that had been read differently).
    let measured = fresh_copy(&scratch.hook, &scratch.dir.join("bin/measured"))?;
    let other =
        options.against.as_deref().map(|path| fresh_copy(path, &scratch.dir.join("bin/against"))).transpose()?;
    let [version, bridge, run, policy, policy_backtrace] = commands(&measured);
    // The one matching hook really runs in both.
    let json = scratch.output(&scratch.hook(&[
        "--workspace",
        &ws_arg,
        "--json",
        "run",
        "pre_tool",
        "--tool",
        "shell",
        "--input",
        r#"{"command":"ls"}"#,
    ]))?;
    let runs: serde_json::Value = serde_json::from_str(&json).context("`hook run --json` printed no JSON")?;
    let ran = runs["runs"].as_array().map_or(0, Vec::len);
    if ran != 1 {
        bail!("expected exactly one hook to run on the bench's event, {ran} ran: {json}");
    }
    scratch.output(&bridge)?;
    scratch.output(&policy)?;
    eprintln!("xtask: per-event rows, {} interleaved runs each", options.runs);
    let against = other.as_deref().map(commands);
    let mut cmds = vec![&truth, &version, &bridge, &run, &policy, &policy_backtrace];
    if let Some(other) = &against {
        scratch.output(&other[1])?;
        cmds.extend(other.iter());
    }
    let m = interleaved(&cmds, options.runs)?;
    let base = "`/bin/true`";
    rows.push(Row::measured("`/bin/true`", m[0], base, m[0], ""));
    rows.push(Row::measured("`hook --version`", m[1], base, m[0], "≤ 1.3×"));
    rows.push(Row::measured(
        "`hook bridge --protocol claude`, 20 hooks, one `/bin/true` runs",
        m[2],
        base,
        m[0],
        "≤ 3×",
    ));
    rows.push(Row::measured("`hook run pre_tool`, same workspace", m[3], base, m[0], "≤ 3×"));
    let unset = "the same, `RUST_BACKTRACE=0`";
    rows.push(Row::measured(
        "`hook bridge`, one `policy` hook (examples/policy), `RUST_BACKTRACE=0`",
        m[4],
        base,
        m[0],
        "",
    ));
    rows.push(Row::measured("the same, `RUST_BACKTRACE=1`", m[5], unset, m[4], "≈ 1×"));
    if let Some(other) = &options.against {
        let name = other.display();
        rows.push(Row::measured(&format!("`{name} --version`"), m[6], base, m[0], ""));
        rows.push(Row::measured(&format!("`{name} bridge --protocol claude`"), m[7], base, m[0], ""));
        rows.push(Row::measured(&format!("`{name} run pre_tool`"), m[8], base, m[0], ""));
        rows.push(Row::measured(&format!("`{name} bridge`, policy, `RUST_BACKTRACE=0`"), m[9], base, m[0], ""));
        rows.push(Row::measured(&format!("`{name} bridge`, policy, `RUST_BACKTRACE=1`"), m[10], unset, m[9], "≈ 1×"));
    }
    Ok(())
}

/// The 20-hook workspace of the per-event rows, generated and trusted as a user would trust it (so the matching
/// hook really runs).
fn event_workspace(scratch: &Scratch) -> Result<PathBuf> {
    let ws = scratch.dir.join("event-ws");
    generate::event_workspace(&ws)?;
    let ws_arg = ws.display().to_string();
    scratch.output(&scratch.hook(&["--workspace", &ws_arg, "trust", "--all", "--yes"]))?;
    Ok(ws)
}

/// The policy workspace of the per-event rows, trusted.
fn policy_workspace(scratch: &Scratch) -> Result<PathBuf> {
    let ws = scratch.dir.join("policy-ws");
    generate::policy_workspace(&ws)?;
    let ws_arg = ws.display().to_string();
    scratch.output(&scratch.hook(&["--workspace", &ws_arg, "trust", "--all", "--yes"]))?;
    Ok(ws)
}

/// The five measured `hook` commands of `binary`: `--version`, a bridge call and a `hook run` on the 20-hook
/// workspace, and a bridge call on the policy workspace with `RUST_BACKTRACE=0` and with `RUST_BACKTRACE=1`.
fn event_commands(scratch: &Scratch, ws: &Path, policy_ws: &Path, binary: &Path) -> [Cmd; 5] {
    let ws_arg = ws.display().to_string();
    let with = |cmd: Cmd| Cmd { program: binary.to_path_buf(), ..cmd };
    let version = with(scratch.hook(&["--version"]));
    let bridge = with(scratch.hook(&["bridge", "--protocol", "claude"]).cwd(ws).stdin(generate::claude_pre_tool(ws)));
    let run = with(
        scratch
            .hook(&["--workspace", &ws_arg, "run", "pre_tool", "--tool", "shell", "--input", r#"{"command":"ls"}"#])
            .cwd(ws),
    );
    let policy = |backtrace: &str| {
        let mut cmd = with(
            scratch
                .hook(&["bridge", "--protocol", "claude"])
                .cwd(policy_ws)
                .stdin(generate::claude_pre_tool(policy_ws)),
        );
        cmd.env.push(("RUST_BACKTRACE".into(), backtrace.into()));
        cmd
    };
    [version, bridge, run, policy("0"), policy("1")]
}

/// A copy of `binary` in `dir`, made now.
fn fresh_copy(binary: &Path, dir: &Path) -> Result<PathBuf> {
    // A launcher script (the npm package's `hook`, JavaScript that finds the binary in the package installed beside
    // it) runs where it is installed: a copy would lose its package. It is measured as `npm install` leaves it.
    let mut magic = [0u8; 4];
    let elf = fs::File::open(binary).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).is_ok()
        && &magic == b"\x7fELF";
    if !elf {
        return Ok(binary.to_path_buf());
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = binary.file_name().context("a binary path names a file")?;
    let copy = dir.join(name);
    fs::copy(binary, &copy).with_context(|| format!("cannot copy {} to {}", binary.display(), copy.display()))?;
    Ok(copy)
}

/// How many times a round of a larger size runs the first size's cold load: its process is short and noisy, and it
/// is what the flatness ratio divides by.
const FIRST_SIZE_REPEATS: usize = 3;

/// Whole-process loading of generated workspaces, with the load cache cold (the state directory emptied before each
/// run) and warm. The flatness row of each size divides by the first size's cold load measured in the same rounds,
/// so a drift of the machine's speed between sizes does not enter the ratio.
fn loading(scratch: &Scratch, options: &Options, rows: &mut Vec<Row>) -> Result<()> {
    let empty = scratch.dir.join("empty-ws");
    fs::create_dir_all(empty.join(".git"))?;
    let floor_cmd = loader(scratch, &empty, &scratch.dir.join("state"));
    let first = options.sizes[0];
    // The first size's cold load of each shape, made with its workspace and run again in every larger size's rounds.
    let mut first_colds: Vec<(Shape, Cmd)> = Vec::new();
    for &size in &options.sizes {
        for shape in [Shape::Native, Shape::Clio] {
            let (ws, cold) = cold_load(scratch, shape, size)?;
            let warm = loader(scratch, &ws, &scratch.dir.join("state"));
            let mut cmds = vec![&floor_cmd, &cold, &warm];
            let first_cold = first_colds.iter().find(|(s, _)| *s == shape).map(|(_, cmd)| cmd);
            if let Some(first_cold) = first_cold {
                cmds.extend(std::iter::repeat_n(first_cold, FIRST_SIZE_REPEATS));
            }
            let runs = options.load_runs.unwrap_or(if size >= 100_000 { 5 } else { 7 });
            eprintln!("xtask: loading {size} {} hooks, {runs} interleaved runs", shape.label());
            let m = interleaved(&cmds, runs)?;
            let (floor, cold_m, warm_m) = (m[0], m[1], m[2]);
            // The load's own cost: the run less the same process on an empty workspace.
            let own = |x: Medians| Medians {
                wall: x.wall.saturating_sub(floor.wall),
                cpu: x.cpu.saturating_sub(floor.cpu),
                max_rss_kib: x.max_rss_kib,
            };
            let base = if first_cold.is_some() {
                // The first size's runs of these rounds, pooled: several medians of one command, their median.
                let repeats = &m[3..];
                own(Medians {
                    wall: median(repeats.iter().map(|r| r.wall).collect()),
                    cpu: median(repeats.iter().map(|r| r.cpu).collect()),
                    max_rss_kib: 0,
                })
            } else {
                own(cold_m)
            };
            let scale = size as f64 / first as f64;
            let scaled = Medians { wall: base.wall.mul_f64(scale), cpu: base.cpu.mul_f64(scale), max_rss_kib: 0 };
            let mut row = Row::measured(
                &format!("load {size} {} hooks, cold (less the same process on an empty workspace)", shape.label()),
                own(cold_m),
                &format!("{first} hooks, cold, same rounds, ×{scale}"),
                scaled,
                "≤ 1.3× (flat per hook)",
            );
            row.note = format!(
                "{:.2} µs/hook CPU; peak {} MiB",
                own(cold_m).cpu.as_secs_f64() * 1e6 / size as f64,
                cold_m.max_rss_kib / 1024
            );
            rows.push(row);
            let mut row = Row::measured(
                &format!("load {size} {} hooks, cached (whole process)", shape.label()),
                warm_m,
                "the same, cold",
                cold_m,
                "",
            );
            row.note = format!("peak {} MiB", warm_m.max_rss_kib / 1024);
            rows.push(row);
            if size == first {
                first_colds.push((shape, cold));
            }
        }
    }
    Ok(())
}

/// Generates the workspace of `size` hooks of `shape`, checks that it loads whole, and returns it with its cold
/// load (the state directory emptied before each run).
fn cold_load(scratch: &Scratch, shape: Shape, size: usize) -> Result<(PathBuf, Cmd)> {
    let ws = scratch.dir.join(format!("load-{}-{size}", shape.label()));
    generate::workspace(&ws, size, shape)?;
    check_loaded(scratch, &ws, size)?;
    let cold_state = scratch.dir.join(format!("cold-state-{}-{size}", shape.label()));
    let mut cold = loader(scratch, &ws, &cold_state);
    cold.fresh_dir = Some(cold_state);
    Ok((ws, cold))
}

/// The loading process at a workspace's size: hook-config's `load` example (a host's load — discovery of every
/// origin, read, parse, normalize, hash, fingerprints, trust, merge — with the load bounds raised, since the
/// defaults stop at 10 000 hooks a file and 50 000 in all), through the load cache in `state`.
fn loader(scratch: &Scratch, ws: &Path, state: &Path) -> Cmd {
    let ws = ws.display().to_string();
    let cache = state.join("hooks/load-cache").display().to_string();
    Cmd::new(&scratch.loader, &[&ws, "--cache", &cache]).envs(&[
        ("HOME", &scratch.dir.join("home")),
        ("XDG_CONFIG_HOME", &scratch.dir.join("config")),
        ("XDG_STATE_HOME", state),
    ])
}

/// Fails unless the loader keeps every declared id (less the collisions between the two files) without an error.
fn check_loaded(scratch: &Scratch, ws: &Path, size: usize) -> Result<()> {
    let json = scratch.output(&loader(scratch, ws, &scratch.dir.join("check-state")))?;
    let report: serde_json::Value = serde_json::from_str(json.trim()).context("the loader printed no JSON")?;
    let errors = report["errors"].as_u64().unwrap_or(u64::MAX);
    let hooks = report["hooks"].as_u64().unwrap_or(0) as usize;
    let expected = expected_hooks(size);
    if errors != 0 || hooks != expected {
        bail!(
            "the generated workspace {} did not load cleanly: {hooks} hooks of {expected}, {errors} errors",
            ws.display()
        );
    }
    Ok(())
}

/// How many hooks a generated workspace of `size` has in force: every tenth id of the second file repeats one of
/// the first.
fn expected_hooks(size: usize) -> usize {
    size - (size / 2).div_ceil(10)
}

fn render(rows: &[Row]) -> String {
    let mut out = String::from(
        "| row | wall | CPU | | baseline | wall | CPU | ratio (wall) | ratio (CPU) | target |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    let opt = |d: Option<Duration>| d.map(ms).unwrap_or_default();
    for row in rows {
        let cpu_ratio = match (row.cpu, row.base_cpu) {
            (Some(a), Some(b)) => format!("**{:.2}×**", ratio(a, b)),
            _ => String::new(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.2}× | {} | {} |\n",
            row.what,
            ms(row.wall),
            opt(row.cpu),
            row.note,
            row.baseline,
            ms(row.base_wall),
            opt(row.base_cpu),
            ratio(row.wall, row.base_wall),
            cpu_ratio,
            row.target
        ));
    }
    out
}

/// `cargo xtask bench-clio PATH`.
pub fn clio(args: &[String], root: &Path) -> Result<()> {
    let options = parse(args, true)?;
    let Some(checkout) = options.clio.clone() else {
        bail!(
            "usage: cargo xtask bench-clio PATH-OF-A-CLIO-CODER-CHECKOUT [--sizes N,N,N] [--load-runs N] [--hook PATH]"
        )
    };
    let scratch = Scratch::new(root, &options, "clio")?;
    // From here on, what a measured command leaves running is counted with it (its orphans come to us).
    crate::adopt_orphans();
    clio::compare(&scratch, &options, &checkout)
}
