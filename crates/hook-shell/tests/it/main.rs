//! hook-shell's integration tests: one binary, one module per concern.

mod bounds;
mod cover;
mod properties;
mod table;
mod three_valued;
