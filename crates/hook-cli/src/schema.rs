//! `hook schema [--config | --payload | --output]`: the JSON Schemas of hooks.yaml (the default), of the payload a
//! command hook reads on stdin, and of the JSON a hook may print. The schemas themselves live in the libraries
//! (`hook_config::config_schema`, `hook_middleware::protocol`), where a host can serve them too. The config schema is
//! also committed as `schema/hooks.schema.json` (a test keeps the two equal) so editors can point at it.

use anyhow::Result;

use crate::cli::SchemaArgs;
use crate::exit;
use crate::render::emit_json;

/// Prints the schema asked for. Schemas have no `version` wrapper: they are JSON Schema documents, versioned by
/// their `$schema` draft.
pub fn run(args: &SchemaArgs) -> Result<u8> {
    let schema = if args.payload {
        hook_middleware::protocol::payload_schema()
    } else if args.output {
        hook_middleware::protocol::output_schema()
    } else {
        hook_config::config_schema()
    };
    emit_json(&schema)?;
    Ok(exit::SUCCESS)
}
