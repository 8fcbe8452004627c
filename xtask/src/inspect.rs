//! `cargo xtask inspect`: load the hook configuration of a workspace and print the same [`InspectReport`] that
//! `hook inspect` prints — as text, or with `--json` as the versioned JSON form.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use hook_config::{InspectReport, Layout, LoadOptions, load};

const USAGE: &str = "usage: cargo xtask inspect [--workspace DIR] [--config-home DIR] [--managed-file FILE] [--json]";

/// The parsed flags.
#[derive(Debug, Default, PartialEq)]
struct Flags {
    workspace: Option<PathBuf>,
    config_home: Option<PathBuf>,
    managed_file: Option<PathBuf>,
    json: bool,
}

fn parse(args: &[String]) -> Result<Flags> {
    let mut flags = Flags::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // Both `--flag value` and `--flag=value`.
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<PathBuf> {
            match inline.clone().or_else(|| args.next().cloned()) {
                Some(value) if !value.is_empty() => Ok(PathBuf::from(value)),
                _ => bail!("`{name}` needs a value\n{USAGE}"),
            }
        };
        match name {
            "--workspace" => flags.workspace = Some(value(name)?),
            "--config-home" => flags.config_home = Some(value(name)?),
            "--managed-file" => flags.managed_file = Some(value(name)?),
            "--json" if inline.is_none() => flags.json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    Ok(flags)
}

/// Runs the task with the arguments after `inspect`.
pub fn run(args: &[String]) -> Result<()> {
    let flags = parse(args)?;
    let workspace = match flags.workspace {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let mut layout = Layout::new(workspace);
    if let Some(dir) = flags.config_home {
        layout = layout.with_config_home(dir);
    }
    if let Some(file) = flags.managed_file {
        layout = layout.with_managed_file(file);
    }
    let config = load(&layout, &LoadOptions::default())?;
    let report = InspectReport::new(&config);
    if flags.json {
        let mut text = serde_json::to_string_pretty(&report).context("the report serializes")?;
        text.push('\n');
        print!("{text}");
    } else {
        print!("{}", report.render_text());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn flags_take_separate_and_inline_values() {
        let flags =
            parse(&args(&["--workspace", "/w", "--config-home=/c", "--managed-file", "/m.yaml", "--json"])).unwrap();
        assert_eq!(
            flags,
            Flags {
                workspace: Some("/w".into()),
                config_home: Some("/c".into()),
                managed_file: Some("/m.yaml".into()),
                json: true
            }
        );
    }

    #[test]
    fn a_missing_value_or_unknown_flag_names_the_flag() {
        let err = parse(&args(&["--workspace"])).unwrap_err().to_string();
        assert!(err.starts_with("`--workspace` needs a value"), "{err}");
        let err = parse(&args(&["--jsno"])).unwrap_err().to_string();
        assert!(err.starts_with("unknown argument `--jsno`"), "{err}");
    }
}
