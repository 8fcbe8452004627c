//! hook-agents' integration tests, one binary: a module per subject (`cargo test -p hook-agents --test it`).

mod bridge_passthrough;
mod import;
