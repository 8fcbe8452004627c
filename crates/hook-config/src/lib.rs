//! Finding, parsing, validating and normalizing hook declarations from every origin and format.
//!
//! Depends on `hook-types`; never spawns a process or runs a hook.
