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
    match kind {
        HookKind::Policy => cfg!(feature = "policy"),
        HookKind::Http => cfg!(feature = "http"),
        _ => true,
    }
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
