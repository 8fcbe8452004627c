//! `cargo xtask bench-clio PATH`: clio-coder's own hook loader beside ours, whole process, on the same generated
//! hooks at each size.
//!
//! PATH is a checkout of clio-coder (<https://github.com/iowarp/clio-coder>) whose dependencies were installed with
//! `npm install` (the person running the bench fetches both; nothing of clio-coder is in this repository). Its loader
//! runs unmodified: a driver of ours imports `readHookSources` (`src/domains/middleware/hooks-io.ts`) and
//! `loadUserHooks` (`hooks.ts`), which esbuild (from the checkout's own `node_modules`) bundles into one ES module,
//! as clio-coder's release build does, so Node runs plain JavaScript with no TypeScript loader in the measurement.
//! The driver reads the workspace's `.clio-coder/hooks.yaml` and `hooks.local.yaml` and merges them, exactly what
//! clio-coder does at startup, and prints how many hooks it kept.
//!
//! Ours is measured two ways in the same rounds. The first table is a host's load as a whole process, hook-config's
//! `load` example (discovery of every origin, read, parse, normalize, hash, fingerprints, trust, merge; the load
//! bounds raised, as the CLI's stop at 10 000 hooks a file), on the same hooks in clio-coder's files and in native
//! snake_case files, with the load cache cold (the state directory emptied before each run) and warm. The second is
//! the `hook` binary itself (`cargo xtask dist`'s, or `--hook PATH`) on clio-coder's files: `hook validate`, `hook
//! inspect` and `hook --json inspect`, at the sizes its default bounds take whole. Time is the median wall time (and
//! CPU time, user + system) of interleaved runs; memory the largest peak resident set of those runs (`wait4`'s
//! resource usage).

use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::cli::{self, Kind};
use super::generate::{self, Shape};
use super::measure::{Cmd, Medians, interleaved, ms};
use super::{Options, Scratch};

/// Our driver of clio-coder's loader (bundled at run time, never committed with clio-coder's code).
fn driver(checkout: &Path) -> String {
    let io = checkout.join("src/domains/middleware/hooks-io.ts");
    let hooks = checkout.join("src/domains/middleware/hooks.ts");
    format!(
        "import {{ readHookSources }} from {io:?};\n\
         import {{ loadUserHooks }} from {hooks:?};\n\
         const cwd = process.argv[2];\n\
         const {{ batches, fileIssues }} = readHookSources({{ cwd }});\n\
         const loaded = loadUserHooks(batches, {{ workspaceRoot: cwd }});\n\
         console.log(JSON.stringify({{ hooks: loaded.hooks.length, overridden: loaded.overridden.length, \
         issues: loaded.issues.length, fileIssues: fileIssues.length }}));\n",
        io = io.display().to_string(),
        hooks = hooks.display().to_string(),
    )
}

/// Runs the comparison and prints its table.
pub fn compare(scratch: &Scratch, options: &Options, checkout: &Path) -> Result<()> {
    let checkout =
        checkout.canonicalize().with_context(|| format!("no clio-coder checkout at {}", checkout.display()))?;
    for needed in ["src/domains/middleware/hooks-io.ts", "src/domains/middleware/hooks.ts", "node_modules/.bin/esbuild"]
    {
        if !checkout.join(needed).exists() {
            bail!(
                "{} has no {needed}: clone https://github.com/iowarp/clio-coder there and run `npm install` in it",
                checkout.display()
            );
        }
    }
    let dir = scratch.dir.join("driver");
    fs::create_dir_all(&dir)?;
    fs::write(dir.join("driver.ts"), driver(&checkout))?;
    let bundle = dir.join("clio-load.mjs");
    let status = std::process::Command::new(checkout.join("node_modules/.bin/esbuild"))
        .arg(dir.join("driver.ts"))
        .args(["--bundle", "--platform=node", "--format=esm", "--target=node20", "--log-level=warning"])
        .arg(format!("--outfile={}", bundle.display()))
        // Bundled CommonJS dependencies may `require` Node's built-ins.
        .arg("--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);")
        .current_dir(&checkout)
        .status()
        .context("cannot run esbuild from the checkout")?;
    if !status.success() {
        bail!("esbuild could not bundle clio-coder's loader ({status})");
    }
    let node = std::env::var_os("NODE").unwrap_or_else(|| "node".into());
    let mut table = String::from(
        "| hooks | clio-coder (Node) | ours, clio-coder files, cold | cached | ours, native files, cold | cached | \
         clio-coder ÷ ours (cold, clio files) | peak RSS clio-coder | ours (cold, clio files) | ours (native) | RSS ratio |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut cli_table = String::from(
        "\nThe `hook` binary on the same clio-coder files, whole process, same rounds:\n\n\
         | hooks | clio-coder (Node) | `hook validate` | `hook inspect` | `hook --json inspect` | clio-coder ÷ \
         validate | ÷ inspect | ÷ inspect --json |\n|---|---|---|---|---|---|---|---|\n",
    );
    for &size in &options.sizes {
        let clio_ws = scratch.dir.join(format!("clio-{size}"));
        let native_ws = scratch.dir.join(format!("native-{size}"));
        generate::workspace(&clio_ws, size, Shape::Clio)?;
        generate::workspace(&native_ws, size, Shape::Native)?;
        let clio = Cmd::new(&node, &[&bundle.display().to_string(), &clio_ws.display().to_string()]);
        let said = scratch.output(&clio)?;
        let counts: serde_json::Value = serde_json::from_str(said.trim()).context("the driver printed no JSON")?;
        super::check_loaded(scratch, &clio_ws, size)?;
        super::check_loaded(scratch, &native_ws, size)?;
        eprintln!("xtask: {size} hooks: clio-coder kept {counts}");
        let expected = super::expected_hooks(size);
        if counts["hooks"].as_u64() != Some(expected as u64) {
            bail!("clio-coder kept {} hooks where ours keeps {expected}: the loads would not compare", counts["hooks"]);
        }
        let ours = |ws: &Path, cold: bool| {
            let state = scratch.dir.join(format!("state-{}", ws.file_name().and_then(|n| n.to_str()).unwrap_or("ws")));
            let mut cmd = super::loader(scratch, ws, &state);
            if cold {
                cmd.fresh_dir = Some(state);
            }
            cmd
        };
        let (clio_cold, clio_warm) = (ours(&clio_ws, true), ours(&clio_ws, false));
        let (native_cold, native_warm) = (ours(&native_ws, true), ours(&native_ws, false));
        // The `hook` binary itself on clio-coder's files, where its default bounds take them whole.
        let cli: Vec<Cmd> = if cli::within_cli_bounds(size) {
            cli::check_loads_whole(scratch, &clio_ws, size)?;
            let state = scratch.dir.join(format!("cli-state-{size}"));
            [Kind::Validate, Kind::Inspect, Kind::InspectJson]
                .map(|kind| kind.command(scratch, &clio_ws, &state))
                .to_vec()
        } else {
            Vec::new()
        };
        let runs = options.load_runs.unwrap_or(if size >= 100_000 { 3 } else { 7 });
        eprintln!("xtask: {size} hooks, {runs} interleaved runs");
        let mut cmds = vec![&clio, &clio_cold, &clio_warm, &native_cold, &native_warm];
        cmds.extend(&cli);
        let m = interleaved(&cmds, runs)?;
        let r = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        let mib = |m: &Medians| m.max_rss_kib as f64 / 1024.0;
        table.push_str(&format!(
            "| {size} | {} ({} CPU) | {} ({} CPU) | {} | {} | {} | **{:.1}×** (CPU {:.1}×; cached {:.1}×; native {:.1}×) \
             | {:.0} MiB | {:.0} MiB | {:.0} MiB | **{:.1}×** |\n",
            ms(m[0].wall),
            ms(m[0].cpu),
            ms(m[1].wall),
            ms(m[1].cpu),
            ms(m[2].wall),
            ms(m[3].wall),
            ms(m[4].wall),
            r(m[0].wall, m[1].wall),
            r(m[0].cpu, m[1].cpu),
            r(m[0].wall, m[2].wall),
            r(m[0].wall, m[3].wall),
            mib(&m[0]),
            mib(&m[1]),
            mib(&m[3]),
            mib(&m[0]) / mib(&m[1]).max(0.001),
        ));
        if cli.is_empty() {
            cli_table.push_str(&format!(
                "| {size} | {} ({} CPU) | past the CLI's default bounds | | | | | |\n",
                ms(m[0].wall),
                ms(m[0].cpu)
            ));
            continue;
        }
        let both = |x: &Medians| format!("{} ({} CPU)", ms(x.wall), ms(x.cpu));
        let times = |x: &Medians| format!("**{:.1}×** (CPU {:.1}×)", r(m[0].wall, x.wall), r(m[0].cpu, x.cpu));
        cli_table.push_str(&format!(
            "| {size} | {} | {} | {} | {} | {} | {} | {} |\n",
            both(&m[0]),
            both(&m[5]),
            both(&m[6]),
            both(&m[7]),
            times(&m[5]),
            times(&m[6]),
            times(&m[7]),
        ));
    }
    table.push_str(&cli_table);
    fs::write(scratch.dir.join("table.md"), &table)?;
    println!("{table}");
    eprintln!("xtask: the table is also in {}", scratch.dir.join("table.md").display());
    Ok(())
}
