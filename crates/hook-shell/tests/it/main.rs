//! hook-shell's integration tests: one binary, one module per concern.

mod bounds;
mod properties;
mod table;
mod three_valued;
