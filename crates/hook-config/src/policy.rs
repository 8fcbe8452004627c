//! `kind: policy`: Rego files compiled once per load (docs/policy.md). When and where they are evaluated, and the
//! bounds around it, are the pipeline's business; this module reads, checks and compiles what a declaration names,
//! and evaluates one query on a copy of the compiled engine.
//!
//! [`CompiledPolicy`] is this crate's own type: the interpreter (regorus, behind the `policy` feature) stays inside
//! it, so none of the interpreter's types is part of this crate's API, and the type is the same in every build.
//! Without the feature none can be made — [`CompiledPolicy::compile`] answers that this build has no policy support
//! — and the loader reports a policy hook as an error-level issue that closes its gate ([`crate::supports_kind`]).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

#[cfg(feature = "policy")]
mod rego;
#[cfg(feature = "policy")]
use rego as engine;

/// A policy hook: Rego files and the rule to ask.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySpec {
    /// The `.rego` files as written (relative to the origin root, or absolute).
    pub files: Vec<String>,
    /// Each file resolved against the origin root, canonical: what was compiled and what the fingerprint covers.
    pub resolved: Vec<PathBuf>,
    /// The rule whose value is the answer, e.g. `data.hooks.pre_tool.decision`.
    pub query: String,
    /// The evaluation's time limit in milliseconds, as declared (before the host's clamp).
    pub timeout_ms: u64,
    /// The files, compiled.
    pub compiled: CompiledPolicy,
}

/// Rego compiled once per load, shared by every dispatch that runs the hook.
///
/// Each evaluation has an engine to itself: one an earlier evaluation gave back, or else a copy of the compiled one.
/// Both are locked only to take or copy an engine and to give one back, never while anything evaluates, so concurrent
/// dispatches never wait for each other's evaluation, and an evaluation given up on (its thread left running) holds
/// nothing another one needs.
///
/// In a build without the `policy` feature there is no value of this type: [`compile`](CompiledPolicy::compile)
/// returns the reason instead.
#[derive(Clone)]
pub struct CompiledPolicy {
    /// The interpreter's compiled form.
    engine: engine::Engine,
    /// sha256 of each file as compiled, in the order of [`PolicySpec::resolved`].
    digests: Arc<Vec<String>>,
}

/// The error returned by [`CompiledPolicy::evaluate`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The interpreter's own timer stopped the evaluation at its limit (it looks between steps, not inside a
    /// builtin; the caller keeps its own deadline too).
    #[error("ran past its time limit of {} ms", .0.as_millis())]
    TimeLimit(Duration),
    /// An evaluation error (a builtin's included, under strict builtin errors), as the interpreter words it.
    #[error("{0}")]
    Failed(String),
}

impl CompiledPolicy {
    /// Compiles `sources` (name, Rego text) into one engine; `Err` names the file and the position of the first
    /// error — or, in a build without the `policy` feature, says so ([`crate::unsupported_kind`]).
    ///
    /// ```
    /// use hook_config::CompiledPolicy;
    /// let rego = "package hooks\ndefault decision := {\"decision\": \"pass\"}\n".to_owned();
    /// let compiled = CompiledPolicy::compile(vec![("hooks.rego".into(), rego)]);
    /// # #[cfg(feature = "policy")] {
    /// use std::time::Duration;
    /// let policy = compiled.unwrap();
    /// let answer = policy.evaluate("data.hooks.decision", serde_json::json!({}), Duration::from_secs(1)).unwrap();
    /// assert_eq!(answer, Some(serde_json::json!({"decision": "pass"})));
    /// assert_eq!(policy.packages(), vec!["data.hooks".to_owned()]);
    /// # }
    /// # #[cfg(not(feature = "policy"))]
    /// assert!(compiled.unwrap_err().contains("has no `policy` support"));
    /// ```
    pub fn compile(sources: Vec<(String, String)>) -> Result<CompiledPolicy, String> {
        let digests =
            sources.iter().map(|(_, text)| crate::hash::lower_hex(&Sha256::digest(text.as_bytes()))).collect();
        let engine = engine::Engine::compile(sources)?;
        Ok(CompiledPolicy { engine, digests: Arc::new(digests) })
    }

    /// Evaluates `query` with `input` on an engine of its own (see [`CompiledPolicy`]), on the calling thread;
    /// `Ok(None)` when the rule is undefined for this input.
    ///
    /// `limit` sets the interpreter's timer, which it checks between steps: a builtin that runs long (one call that
    /// builds a huge range, a quadratic string search) is not stopped by it, so a caller that must answer in time
    /// runs this where it can stop waiting for it (the pipeline runs it on a thread of its own).
    ///
    /// ```
    /// # #[cfg(feature = "policy")] {
    /// use std::time::Duration;
    /// use hook_config::{CompiledPolicy, PolicyError};
    /// let rego = "package p\nimport rego.v1\nslow := count([1 | some a in numbers.range(1, 5000); some b in \
    ///             numbers.range(1, 5000); a == b + 9000])\n";
    /// let policy = CompiledPolicy::compile(vec![("p.rego".into(), rego.to_owned())]).unwrap();
    /// let limit = Duration::from_millis(10);
    /// assert_eq!(policy.evaluate("data.p.slow", serde_json::json!({}), limit), Err(PolicyError::TimeLimit(limit)));
    /// # }
    /// ```
    pub fn evaluate(
        &self,
        query: &str,
        input: serde_json::Value,
        limit: Duration,
    ) -> Result<Option<serde_json::Value>, PolicyError> {
        self.engine.evaluate(query, input, limit)
    }

    /// The packages the files define, as `data.<package>` paths.
    pub fn packages(&self) -> Vec<String> {
        self.engine.packages()
    }

    /// sha256 of each file as it was compiled.
    pub fn digests(&self) -> &[String] {
        &self.digests
    }
}

impl fmt::Debug for CompiledPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledPolicy").field("digests", &self.digests).finish_non_exhaustive()
    }
}

impl PartialEq for CompiledPolicy {
    /// Two compilations of the same bytes are the same policy.
    fn eq(&self, other: &Self) -> bool {
        self.digests == other.digests
    }
}

/// A build without the `policy` feature: no interpreter, so no compiled policy can exist.
#[cfg(not(feature = "policy"))]
mod engine {
    use std::time::Duration;

    use super::PolicyError;

    /// Has no value: every [`Engine::compile`] fails, so the methods on one are never called.
    #[derive(Clone)]
    pub(super) enum Engine {}

    impl Engine {
        pub(super) fn compile(_sources: Vec<(String, String)>) -> Result<Engine, String> {
            Err(crate::unsupported_kind(hook_types::HookKind::Policy))
        }

        pub(super) fn evaluate(
            &self,
            _query: &str,
            _input: serde_json::Value,
            _limit: Duration,
        ) -> Result<Option<serde_json::Value>, PolicyError> {
            match *self {}
        }

        pub(super) fn packages(&self) -> Vec<String> {
            match *self {}
        }
    }
}
