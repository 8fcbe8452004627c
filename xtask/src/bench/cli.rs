//! The loading rows of the `hook` binary itself (the one `cargo xtask dist` builds, or `--hook PATH`): `hook
//! validate`, `hook inspect` (text and `--json`) and a bridge call (the load cache cold and warm) on the generated
//! workspaces, at every size the CLI's default load bounds take whole.
//!
//! Each row is the command's whole-process CPU time less the same command on an empty workspace (its start, its
//! discovery of the origins), beside the first size's, scaled by the number of hooks and measured in the same
//! interleaved rounds: flat per hook is a ratio near 1.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hook_types::Limits;

use super::generate::{self, Shape};
use super::measure::{Cmd, Medians, interleaved, median};
use super::{Options, Row, Scratch};

/// A measured `hook` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `hook validate`.
    Validate,
    /// `hook inspect`.
    Inspect,
    /// `hook --json inspect`.
    InspectJson,
    /// `hook bridge --protocol claude` on a `PreToolUse` of `Bash`, the load cache and session state emptied
    /// before each run.
    BridgeCold,
    /// The same with the load cache and session state kept from the run before.
    BridgeCached,
}

impl Kind {
    pub(super) const ALL: [Kind; 5] =
        [Kind::Validate, Kind::Inspect, Kind::InspectJson, Kind::BridgeCold, Kind::BridgeCached];

    pub(super) fn label(self) -> &'static str {
        match self {
            Kind::Validate => "`hook validate`",
            Kind::Inspect => "`hook inspect`",
            Kind::InspectJson => "`hook --json inspect`",
            Kind::BridgeCold => "`hook bridge`, load cache cold",
            Kind::BridgeCached => "`hook bridge`, load cache warm",
        }
    }

    /// The command on workspace `ws`, with `state` as its state directory (`XDG_STATE_HOME`).
    pub(super) fn command(self, scratch: &Scratch, ws: &Path, state: &Path) -> Cmd {
        let ws_arg = ws.display().to_string();
        let shown = |args: &[&str]| {
            let mut all = vec!["--workspace", ws_arg.as_str()];
            all.extend_from_slice(args);
            scratch.hook_in(&all, state)
        };
        match self {
            Kind::Validate => shown(&["validate"]),
            Kind::Inspect => shown(&["inspect"]),
            Kind::InspectJson => shown(&["--json", "inspect"]),
            Kind::BridgeCold | Kind::BridgeCached => {
                let mut cmd = scratch
                    .hook_in(&["bridge", "--protocol", "claude"], state)
                    .cwd(ws)
                    .stdin(generate::claude_pre_tool(ws));
                if self == Kind::BridgeCold {
                    cmd.fresh_dir = Some(state.to_path_buf());
                }
                cmd
            }
        }
    }
}

/// Whether the CLI's default load bounds take a generated workspace of `size` whole (its two files of half each).
pub(super) fn within_cli_bounds(size: usize) -> bool {
    let limits = Limits::default();
    size.div_ceil(2) <= limits.max_hooks_per_file && size <= limits.max_hooks_total
}

/// Fails unless `hook --json validate` keeps every expected hook of the workspace without an error.
pub(super) fn check_loads_whole(scratch: &Scratch, ws: &Path, size: usize) -> Result<()> {
    let ws_arg = ws.display().to_string();
    let json = scratch
        .output(&scratch.hook_in(&["--workspace", &ws_arg, "--json", "validate"], &scratch.dir.join("check-state")))?;
    let report: serde_json::Value = serde_json::from_str(&json).context("`hook --json validate` printed no JSON")?;
    let (hooks, errors) =
        (report["hooks"].as_u64().unwrap_or(0) as usize, report["errors"].as_u64().unwrap_or(u64::MAX));
    let expected = super::expected_hooks(size);
    if hooks != expected || errors != 0 {
        bail!("`hook validate` on {} kept {hooks} hooks of {expected}, with {errors} errors", ws.display());
    }
    Ok(())
}

/// The workspace of `size` hooks of `shape` for the `hook` rows, generated and checked.
pub(super) fn workspace(scratch: &Scratch, shape: Shape, size: usize) -> Result<PathBuf> {
    let ws = scratch.dir.join(format!("cli-{}-{size}", shape.label()));
    generate::workspace(&ws, size, shape)?;
    check_loads_whole(scratch, &ws, size)?;
    Ok(ws)
}

/// The rows: for each shape and each size within the CLI's bounds, every [`Kind`] less its run on an empty
/// workspace, beside the first size's scaled (the first size's commands run [`super::FIRST_SIZE_REPEATS`] times a
/// round in every larger size's rounds).
pub(super) fn rows(scratch: &Scratch, options: &Options, rows: &mut Vec<Row>) -> Result<()> {
    let sizes: Vec<usize> = options.sizes.iter().copied().filter(|&size| within_cli_bounds(size)).collect();
    for &size in options.sizes.iter().filter(|&&size| !within_cli_bounds(size)) {
        eprintln!(
            "xtask: no `hook` rows at {size} hooks: past the CLI's default bounds ({} hooks a file, {} in all), \
             which `hook validate` reports as errors",
            Limits::default().max_hooks_per_file,
            Limits::default().max_hooks_total
        );
    }
    let Some(&first) = sizes.first() else { return Ok(()) };
    let empty = scratch.dir.join("empty-ws");
    std::fs::create_dir_all(empty.join(".git"))?;
    let state = |name: &str| scratch.dir.join(format!("state-{name}"));
    let floors: Vec<Cmd> =
        Kind::ALL.iter().map(|kind| kind.command(scratch, &empty, &state(&format!("empty-{kind:?}")))).collect();
    for shape in [Shape::Native, Shape::Clio] {
        let mut first_cmds: Vec<Cmd> = Vec::new();
        for &size in &sizes {
            let ws = workspace(scratch, shape, size)?;
            let cmds: Vec<Cmd> = Kind::ALL
                .iter()
                .map(|kind| kind.command(scratch, &ws, &state(&format!("{}-{size}-{kind:?}", shape.label()))))
                .collect();
            let repeats = if size == first { 0 } else { super::FIRST_SIZE_REPEATS };
            let mut all: Vec<&Cmd> = floors.iter().chain(&cmds).collect();
            for _ in 0..repeats {
                all.extend(first_cmds.iter());
            }
            let runs = options.load_runs.unwrap_or(7);
            eprintln!("xtask: `hook` at {size} {} hooks, {runs} interleaved runs", shape.label());
            let m = interleaved(&all, runs)?;
            let n = Kind::ALL.len();
            for (k, kind) in Kind::ALL.iter().enumerate() {
                let floor = m[k];
                let own = |x: Medians| Medians {
                    wall: x.wall.saturating_sub(floor.wall),
                    cpu: x.cpu.saturating_sub(floor.cpu),
                    max_rss_kib: x.max_rss_kib,
                };
                let measured = m[n + k];
                let base = if repeats == 0 {
                    own(measured)
                } else {
                    let of_first: Vec<Medians> = (0..repeats).map(|r| m[2 * n + r * n + k]).collect();
                    own(Medians {
                        wall: median(of_first.iter().map(|x| x.wall).collect()),
                        cpu: median(of_first.iter().map(|x| x.cpu).collect()),
                        max_rss_kib: 0,
                    })
                };
                let scale = size as f64 / first as f64;
                let scaled = Medians { wall: base.wall.mul_f64(scale), cpu: base.cpu.mul_f64(scale), max_rss_kib: 0 };
                let mut row = Row::measured(
                    &format!(
                        "{} {size} {} hooks (`hook`, less the same on an empty workspace)",
                        kind.label(),
                        shape.label()
                    ),
                    own(measured),
                    &format!("{first} hooks, same rounds, ×{scale}"),
                    scaled,
                    "≤ 1.3× (flat per hook)",
                );
                row.note = format!(
                    "{:.2} µs/hook CPU; whole process {} CPU; peak {} MiB",
                    own(measured).cpu.as_secs_f64() * 1e6 / size as f64,
                    super::measure::ms(measured.cpu),
                    measured.max_rss_kib / 1024
                );
                rows.push(row);
            }
            if size == first {
                first_cmds = cmds;
            }
        }
    }
    Ok(())
}
