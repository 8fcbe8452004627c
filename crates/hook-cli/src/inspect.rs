//! `hook inspect`: the merged configuration as hook-config's [`InspectReport`], as text or as its versioned JSON.

use anyhow::Result;
use hook_config::InspectReport;

use crate::context::Context;
use crate::exit;
use crate::render::{emit, emit_json};

/// Prints the report; always exit 0 (problems are listed in the report; `hook validate` fails on them).
pub fn run(ctx: &Context) -> Result<u8> {
    let report = InspectReport::new(&ctx.load_to_show()?);
    if ctx.json {
        emit_json(&report)?;
    } else {
        emit(&report.render_text())?;
    }
    Ok(exit::SUCCESS)
}
