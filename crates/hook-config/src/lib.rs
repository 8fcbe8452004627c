//! Finding, parsing, validating and normalizing hook declarations from every origin and format; the content hash;
//! the precedence merge; the trust store; the inspect report.
//!
//! Depends on `hook-types`, serde, a YAML crate, toml, sha2 and regex. It never spawns a process and never runs a
//! hook. Expected bad input is data: loading returns the valid hooks plus a list of [`Issue`]s.
#![forbid(unsafe_code)]

mod model;

pub use model::{
    AsMode, CommandSpec, Fingerprint, FingerprintFile, Format, HookDecl, HookSpec, Issue, IssueSeverity, LoadedHook, Matcher,
    MatcherRule, Program, TrustStatus,
};
