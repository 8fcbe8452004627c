//! Finding, parsing, validating and normalizing hook declarations from every origin and format; the content hash;
//! the precedence merge; the trust store; the inspect report.
//!
//! Depends on `hook-types`, serde, a YAML crate, toml, sha2 and regex. It never spawns a process and never runs a
//! hook. Expected bad input is data: loading returns the valid hooks plus a list of [`Issue`]s.
#![forbid(unsafe_code)]

mod discover;
mod file;
mod formats;
mod hash;
mod issues;
mod matcher;
mod normalize;
mod parse;
mod fingerprint;
pub mod import;
mod inspect;
pub mod install;
mod layout;
mod load;
mod merge;
mod model;
mod trust;

pub use model::{
    AsMode, CommandSpec, Fingerprint, FingerprintFile, Format, HookDecl, HookSpec, Issue, IssueSeverity, LoadedHook, Matcher,
    MatcherRule, Program, TrustStatus,
};
pub use discover::SourceFile;
pub use file::{FileContext, FileLoad, StrictError, load_file, parse_str};
pub use hash::{canonical_hash_input, content_hash};
pub use fingerprint::{fingerprint, recheck};
pub use inspect::{INSPECT_VERSION, InspectFilters, InspectHook, InspectHookRef, InspectOverridden, InspectReport, InspectShadow};
pub use layout::{DEFAULT_APP_DIR, DEFAULT_MANAGED_FILE, Layout, TRUST_STORE_FILE};
pub use load::{Config, LoadError, LoadOptions, load};
pub use merge::{Overridden, ShadowAttempt};
pub use trust::{TrustError, TrustRecord, TrustStore, trust_status, trust_value};
