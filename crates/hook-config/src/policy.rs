//! `kind: policy`: Rego files compiled once per load (docs/policy.md). When and where they are evaluated, and the
//! bounds around it, are the pipeline's business; this module reads, checks and compiles what a declaration names,
//! and evaluates one query on a copy of the compiled engine.

use std::fmt;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use regorus::utils::limits::ExecutionTimerConfig;

use sha2::{Digest, Sha256};

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
#[derive(Clone)]
pub struct CompiledPolicy {
    /// Prepared at compile time and never evaluated on; locked for a copy or a look at its packages.
    template: Arc<Mutex<regorus::Engine>>,
    /// Engines that finished an evaluation, for the next ones (a copy costs more than the evaluation of a small
    /// policy): at most [`SPARE_ENGINES`].
    spare: Arc<Mutex<Vec<regorus::Engine>>>,
    /// sha256 of each file as compiled, in the order of [`PolicySpec::resolved`].
    digests: Arc<Vec<String>>,
}

/// How many engines a policy keeps for its next evaluations (as many as ever ran at once, up to this).
const SPARE_ENGINES: usize = 4;

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
    /// error.
    ///
    /// ```
    /// use std::time::Duration;
    /// use hook_config::CompiledPolicy;
    /// let rego = "package hooks\ndefault decision := {\"decision\": \"pass\"}\n".to_owned();
    /// let policy = CompiledPolicy::compile(vec![("hooks.rego".into(), rego)]).unwrap();
    /// let answer = policy.evaluate("data.hooks.decision", serde_json::json!({}), Duration::from_secs(1)).unwrap();
    /// assert_eq!(answer, Some(serde_json::json!({"decision": "pass"})));
    /// assert_eq!(policy.packages(), vec!["data.hooks".to_owned()]);
    /// ```
    pub fn compile(sources: Vec<(String, String)>) -> Result<CompiledPolicy, String> {
        let mut engine = regorus::Engine::new();
        // An error rather than a silent `undefined` when a builtin fails (a bad regex): the hook fails closed.
        engine.set_strict_builtin_errors(true);
        let mut digests = Vec::with_capacity(sources.len());
        for (name, text) in sources {
            digests.push(crate::hash::lower_hex(&Sha256::digest(text.as_bytes())));
            engine.add_policy(name, text).map_err(|e| e.to_string())?;
        }
        // The analysis and scheduling an engine does before its first evaluation, done here, once per load: a
        // trivial query prepares the whole policy, and every copy starts prepared.
        engine.eval_bool_query("true".into(), false).map_err(|e| e.to_string())?;
        Ok(CompiledPolicy {
            template: Arc::new(Mutex::new(engine)),
            spare: Arc::new(Mutex::new(Vec::new())),
            digests: Arc::new(digests),
        })
    }

    /// Evaluates `query` with `input` on an engine of its own (see [`CompiledPolicy`]), on the calling thread;
    /// `Ok(None)` when the rule is undefined for this input.
    ///
    /// `limit` sets the interpreter's timer, which it checks between steps: a builtin that runs long (one call that
    /// builds a huge range, a quadratic string search) is not stopped by it, so a caller that must answer in time
    /// runs this where it can stop waiting for it (the pipeline runs it on a thread of its own).
    ///
    /// ```
    /// use std::time::Duration;
    /// use hook_config::{CompiledPolicy, PolicyError};
    /// let rego = "package p\nimport rego.v1\nslow := count([1 | some a in numbers.range(1, 5000); some b in \
    ///             numbers.range(1, 5000); a == b + 9000])\n";
    /// let policy = CompiledPolicy::compile(vec![("p.rego".into(), rego.to_owned())]).unwrap();
    /// let limit = Duration::from_millis(10);
    /// assert_eq!(policy.evaluate("data.p.slow", serde_json::json!({}), limit), Err(PolicyError::TimeLimit(limit)));
    /// ```
    pub fn evaluate(
        &self,
        query: &str,
        input: serde_json::Value,
        limit: Duration,
    ) -> Result<Option<serde_json::Value>, PolicyError> {
        let mut engine = self.take();
        engine.set_execution_timer_config(ExecutionTimerConfig {
            limit,
            check_interval: NonZeroU32::new(64).expect("64 is not zero"),
        });
        engine.set_input(regorus::Value::from(input));
        let answer = engine.eval_rule(query.to_owned());
        // The next evaluation starts by clearing what this one left (`eval_rule` does), input aside.
        engine.set_input(regorus::Value::Undefined);
        self.give_back(engine);
        match answer {
            Ok(regorus::Value::Undefined) => Ok(None),
            Ok(value) => serde_json::to_value(&value).map(Some).map_err(|e| PolicyError::Failed(e.to_string())),
            Err(error) if ran_out_of_time(&*error) => Err(PolicyError::TimeLimit(limit)),
            Err(error) => Err(PolicyError::Failed(error.to_string())),
        }
    }

    /// A spare engine, or a copy of the compiled one; each lock is held for a pop or a copy only.
    fn take(&self) -> regorus::Engine {
        let spare = self.spare.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        spare.unwrap_or_else(|| self.template.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone())
    }

    /// Keeps `engine` for a next evaluation, unless enough are kept (it is dropped after the lock is released).
    fn give_back(&self, engine: regorus::Engine) {
        let mut spare = self.spare.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let extra = if spare.len() < SPARE_ENGINES {
            spare.push(engine);
            None
        } else {
            Some(engine)
        };
        drop(spare);
        drop(extra);
    }

    /// The packages the files define, as `data.<package>` paths.
    pub fn packages(&self) -> Vec<String> {
        let template = self.template.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        template.get_packages().unwrap_or_default()
    }

    /// sha256 of each file as it was compiled.
    pub fn digests(&self) -> &[String] {
        &self.digests
    }
}

/// Whether the interpreter's timer stopped an evaluation (its error, wherever it sits in the chain of causes).
fn ran_out_of_time(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if matches!(error.downcast_ref::<regorus::LimitError>(), Some(regorus::LimitError::TimeLimitExceeded { .. })) {
            return true;
        }
        cause = error.source();
    }
    error.to_string().contains("execution exceeded time limit")
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
