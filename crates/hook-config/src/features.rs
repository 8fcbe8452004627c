//! The hook kinds this build can run, and the words for one it cannot.
//!
//! `kind: policy` and `kind: http` are cargo features of this crate (`policy`, `http`; both on by default) and of
//! hook-middleware, which turns on the one of the same name here. A build without one still reads a declaration of
//! that kind: the loader reports an error-level issue on its `kind` field ([`unsupported_kind`]) and drops it, and
//! the gate it was on is closed ([`ClosedGate`](crate::ClosedGate)): a guard that cannot run is never skipped in
//! silence.

use hook_types::HookKind;

/// Whether this build of hook-config accepts hooks of `kind`: every kind but `policy` and `http` always; those two
/// with the cargo feature of the same name.
///
/// ```
/// use hook_types::HookKind;
/// assert!(hook_config::supports_kind(HookKind::Command));
/// assert_eq!(hook_config::supports_kind(HookKind::Policy), cfg!(feature = "policy"));
/// assert_eq!(hook_config::supports_kind(HookKind::Http), cfg!(feature = "http"));
/// ```
pub fn supports_kind(kind: HookKind) -> bool {
    let left_out =
        (kind == HookKind::Policy && !cfg!(feature = "policy")) || (kind == HookKind::Http && !cfg!(feature = "http"));
    !left_out
}

/// What a build that cannot run hooks of `kind` says about one: which program, which kind, and the feature that
/// adds it. The running executable's name stands for the host (`hook`, or the program that embeds this crate).
///
/// ```
/// use hook_types::HookKind;
/// let message = hook_config::unsupported_kind(HookKind::Policy);
/// assert!(message.starts_with("this build of `"), "{message}");
/// assert!(message.ends_with(
///     "` has no `policy` support; enable the `policy` feature of hook-config/hook-middleware"
/// ));
/// ```
pub fn unsupported_kind(kind: HookKind) -> String {
    let kind = kind.as_str();
    format!(
        "this build of `{}` has no `{kind}` support; enable the `{kind}` feature of hook-config/hook-middleware",
        host()
    )
}

/// The running executable's file name, or `this program` when it cannot be told.
fn host() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_name().map(|name| name.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "this program".to_owned())
}

/// The features that change what a load returns, for the load cache's key: an entry written by a build without
/// one is never served to a build with it, nor the other way round.
pub(crate) const KEY: &str = concat!("policy=", cfg!(feature = "policy"), ",http=", cfg!(feature = "http"));

/// A build without `policy` or without `http` (`cargo test -p hook-config --no-default-features`): a declaration of
/// the missing kind, loaded from real files, is an error on its `kind` that closes its gate.
#[cfg(all(test, any(not(feature = "policy"), not(feature = "http"))))]
mod tests {
    use std::path::Path;

    use hook_types::{Event, HookKind};

    use crate::{Config, IssueSeverity, Layout, LoadOptions, load};

    /// Loads `hooks` as the workspace's `.hooks/hooks.yaml`, beside a valid `policy/hooks.rego`.
    fn load_workspace(dir: &Path, hooks: &str) -> Config {
        let workspace = dir.join("repo");
        std::fs::create_dir_all(workspace.join(".hooks")).unwrap();
        std::fs::create_dir_all(workspace.join("policy")).unwrap();
        std::fs::write(workspace.join("policy/hooks.rego"), "package hooks\ndefault decision := {}\n").unwrap();
        std::fs::write(workspace.join(".hooks/hooks.yaml"), hooks).unwrap();
        let layout = Layout::new(&workspace)
            .with_config_home(dir.join("config"))
            .with_home(None)
            .with_managed_file(dir.join("managed.yaml"));
        load(&layout, &LoadOptions::default()).unwrap()
    }

    /// The issues on `field`, as (line, message).
    fn issues_on(config: &Config, field: &str) -> Vec<(Option<usize>, String)> {
        config
            .issues
            .iter()
            .filter(|i| i.field.as_deref() == Some(field))
            .map(|i| {
                assert_eq!(i.severity, IssueSeverity::Error, "{i}");
                (i.line, i.message.clone())
            })
            .collect()
    }

    #[cfg(not(feature = "policy"))]
    #[test]
    fn a_policy_hook_is_an_error_on_its_kind_and_its_gate_denies() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = "\
- id: rego-guard
  on: pre_tool
  kind: policy
  files: [policy/hooks.rego]
  query: data.hooks.decision
- id: rego-notes
  on: post_tool
  kind: policy
  files: [policy/hooks.rego]
  query: data.hooks.decision
- id: rego-typo
  on: permission_request
  kind: policy
  files: [policy/missing.rego]
  query: hooks
";
        let config = load_workspace(dir.path(), hooks);
        assert!(config.hooks.is_empty(), "{:#?}", config.hooks);
        let unsupported = super::unsupported_kind(HookKind::Policy);
        assert!(unsupported.contains("has no `policy` support; enable the `policy` feature of hook-config"));
        assert_eq!(issues_on(&config, "hooks[0].kind"), [(Some(3), unsupported.clone())]);
        assert_eq!(issues_on(&config, "hooks[1].kind"), [(Some(8), unsupported.clone())]);
        assert_eq!(issues_on(&config, "hooks[2].kind"), [(Some(13), unsupported)]);
        // The rest of each declaration is still checked: the first two have nothing else wrong, the third has two
        // more errors, reported in the same pass.
        let others: Vec<&str> =
            config.issues.iter().filter_map(|i| i.field.as_deref()).filter(|f| !f.ends_with(".kind")).collect();
        assert_eq!(others, ["hooks[2].files[0]", "hooks[2].query"], "{:#?}", config.issues);
        // Each gate a policy hook was on is closed, with the reason naming the file, the line and the feature; an
        // observer (post_tool) closes nothing.
        let closed: Vec<&[Event]> = config.closed_gates.iter().map(|c| c.events.as_slice()).collect();
        assert_eq!(closed, [&[Event::PreTool][..], &[Event::PermissionRequest][..]]);
        let reason = config.closed_gates[0].reason();
        assert!(reason.contains("/.hooks/hooks.yaml:3:"), "{reason}");
        assert!(reason.contains("hooks[0].kind: this build of `"), "{reason}");
        assert!(reason.ends_with("enable the `policy` feature of hook-config/hook-middleware (run hook validate)"));
    }

    #[cfg(not(feature = "http"))]
    #[test]
    fn an_http_hook_is_an_error_on_its_kind_and_its_gate_denies() {
        let dir = tempfile::tempdir().unwrap();
        let config = load_workspace(
            dir.path(),
            "- id: remote-guard\n  on: turn_start\n  kind: http\n  url: https://policy.example/v1/data/hooks\n\
             - id: remote-bad-url\n  on: pre_tool\n  kind: http\n  url: policy.example\n",
        );
        assert!(config.hooks.is_empty(), "{:#?}", config.hooks);
        let unsupported = super::unsupported_kind(HookKind::Http);
        assert!(unsupported.contains("has no `http` support; enable the `http` feature of hook-config"));
        assert_eq!(issues_on(&config, "hooks[0].kind"), [(Some(3), unsupported.clone())]);
        assert_eq!(issues_on(&config, "hooks[1].kind"), [(Some(7), unsupported)]);
        assert_eq!(issues_on(&config, "hooks[1].url").len(), 1, "{:#?}", config.issues);
        assert_eq!(config.issues.len(), 3, "{:#?}", config.issues);
        let closed: Vec<&[Event]> = config.closed_gates.iter().map(|c| c.events.as_slice()).collect();
        assert_eq!(closed, [&[Event::TurnStart][..], &[Event::PreTool][..]]);
        assert!(config.closed_gates[0].reason().contains("hooks[0].kind: this build of `"));
    }

    #[test]
    fn the_kinds_a_build_lacks_are_named_in_the_cache_key() {
        assert_eq!(super::KEY.contains("policy=true"), cfg!(feature = "policy"));
        assert_eq!(super::KEY.contains("http=true"), cfg!(feature = "http"));
        assert!(!super::supports_kind(HookKind::Policy) || !super::supports_kind(HookKind::Http));
        assert!(super::supports_kind(HookKind::Command) && super::supports_kind(HookKind::Effect));
    }
}
