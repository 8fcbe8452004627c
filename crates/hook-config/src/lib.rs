//! Finding, parsing, validating and normalizing hook declarations from every origin and format; the content hash;
//! the precedence merge; the trust store; the inspect report.
//!
//! Depends on `hook-types`, serde, a YAML crate (serde_norway), toml, sha2 and regex. It never spawns a process and
//! never runs a hook. Expected bad input is data: loading returns the valid hooks plus a list of [`Issue`]s, each
//! naming its file, hook, field and position.
//!
//! ```
//! use hook_config::{Layout, LoadOptions, TrustStatus, load};
//!
//! // A workspace and a config home beside it (throwaway directories here).
//! let base = std::env::temp_dir().join(format!("hook-config-front-page-{}", std::process::id()));
//! let (workspace, home) = (base.join("repo"), base.join("home"));
//! std::fs::create_dir_all(workspace.join(".hooks")).unwrap();
//! std::fs::write(workspace.join("guard.sh"), "#!/bin/sh\nexit 0\n").unwrap();
//! # use std::os::unix::fs::PermissionsExt;
//! // A script without its run bit would be an error naming `chmod +x`.
//! std::fs::set_permissions(workspace.join("guard.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
//! std::fs::write(
//!     workspace.join(".hooks/hooks.yaml"),
//!     "- id: no-force-push\n  on: PreToolUse\n  tools: [shell]\n  kind: command\n  argv: [./guard.sh]\n\
//!      - on: pre_tool\n  kind: effect\n  effect: { kind: protect_path, path: .env, reason: secrets }\n\
//!      - on: pre_tol\n  kind: prompt\n  message: typo in the event\n",
//! )
//! .unwrap();
//!
//! let layout = Layout::new(&workspace)
//!     .with_config_home(home.join("config"))
//!     .with_home(None)
//!     .with_managed_file(home.join("managed.yaml"));
//! let config = load(&layout, &LoadOptions::default()).unwrap();
//!
//! // The valid hooks load, in precedence order, with their hash and trust status…
//! let guard = config.get("no-force-push").unwrap();
//! assert_eq!(guard.decl.hash.len(), 16);
//! assert_eq!(guard.trust, TrustStatus::Untrusted); // a project command hook waits for `hook trust`
//! assert_eq!(config.hooks[1].trust, TrustStatus::Trusted); // a narrowing effect needs no trust
//! // …and the bad one is an issue naming the field, with a suggestion.
//! let issue = config.issues.iter().find(|i| i.field.as_deref() == Some("hooks[2].on")).unwrap();
//! assert!(issue.message.contains("did you mean `pre_tool`?"), "{issue}");
//! // A declaration whose event cannot be told could have guarded any gate: every gate denies until it is fixed.
//! assert_eq!(config.closed_gates[0].events, hook_config::GATES);
//! assert!(config.closed_gates[0].reason().starts_with("the hook configuration has errors: "));
//! # std::fs::remove_dir_all(&base).unwrap();
//! ```
//!
//! # Features
//!
//! - `policy` (default): `kind: policy`, Rego compiled by regorus into a [`CompiledPolicy`] — this crate's own type;
//!   none of regorus's is part of the API.
//! - `http` (default): `kind: http` ([`HttpSpec`]). It adds no dependency here (the client is hook-middleware's);
//!   it says the build can run what the loader accepts.
//!
//! A build without one still reads a declaration of that kind, and never skips it in silence: an error-level issue
//! on its `kind` ([`unsupported_kind`]), and the gate it was on is closed ([`ClosedGate`]). [`supports_kind`] tells
//! which kinds this build accepts. hook-middleware's features of the same names turn these on.
//!
//! No `unsafe` but the Windows calls (`LockFileEx`, `GetFileInformationByHandle`) in `platform/windows.rs`.
#![cfg_attr(not(windows), forbid(unsafe_code))]
#![cfg_attr(windows, deny(unsafe_code))]

mod bridge_program;
mod cache;
mod closed_gate;
mod discover;
mod excluded;
mod features;
mod file;
mod fingerprint;
mod formats;
mod hash;
mod inspect;
mod issues;
mod layout;
mod load;
pub mod locked;
mod matcher;
mod merge;
mod model;
mod normalize;
mod parse;
mod permission_rule;
pub mod platform;
mod policy;
mod realpath;
mod remote;
mod schema;
mod shell_command;
mod trust;
mod workspace_trust;

pub use bridge_program::{BridgeProgram, ENCODED_BRIDGE_VARIABLE, lone_command};
pub use cache::{MAX_ENTRIES as LOAD_CACHE_MAX_ENTRIES, default_load_cache_dir};
pub use closed_gate::{ClosedGate, GATES, is_gate};
pub use discover::{MAX_DIR_FILES as MAX_HOOK_DIR_FILES, SourceFile};
pub use excluded::{Excluded, ExclusionReason};
pub use features::{supports_kind, unsupported_kind};
pub use file::{FileContext, FileLoad, StrictError, load_file, load_file_with, parse_str, parse_str_with};
pub use fingerprint::{fingerprint, program_on_hook_path, recheck};
pub use formats::{
    EVENT_EXECUTABLES_MAX_ENTRIES, EventExecutable, event_executable_argv, event_executable_bridge_line,
    event_executable_head, event_executable_name, event_executables, strip_json_comments,
};
pub use hash::{canonical_hash_input, content_hash};
pub use inspect::{
    INSPECT_VERSION, InspectBuiltIn, InspectClosedGate, InspectExcluded, InspectFilters, InspectHook, InspectHookRef,
    InspectOverridden, InspectReport, InspectShadow,
};
pub use layout::{DEFAULT_APP_DIR, DEFAULT_MANAGED_FILE, Layout, TRUST_STORE_FILE};
pub use load::{Config, LoadError, LoadOptions, load};
pub use merge::{Overridden, ShadowAttempt};
pub use model::{
    AsMode, CommandSpec, EvaluatedSpec, Fingerprint, FingerprintFile, Format, HookDecl, HookSpec, Issue, IssueSeverity,
    LoadedHook, Matcher, MatcherRule, Program, TrustStatus,
};
pub use normalize::id_prefix;
pub use permission_rule::{PathContext, PermissionRule, RuleError};
pub use policy::{CompiledPolicy, PolicyError, PolicySpec};
pub use realpath::canonicalize;
pub use remote::{HttpFormat, HttpSpec, env_refs, expand_env_refs};
pub use schema::{config_schema, effect_schema};
pub use shell_command::{CommandMatcher, CommandMatcherError, OnUnknown, shell_analysis};
pub use trust::{TrustError, TrustRecord, TrustStore, trust_status, trust_value};
