//! `kind: policy`: Rego files compiled once per load (docs/policy.md). Evaluating them is the pipeline's business;
//! this module only reads, checks and compiles what a declaration names.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

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
/// An evaluation needs the engine to itself: [`CompiledPolicy::with_engine`] lends the compiled engine, or a copy of
/// it when another dispatch holds it, so concurrent dispatches never wait on each other.
#[derive(Clone)]
pub struct CompiledPolicy {
    engine: Arc<Mutex<regorus::Engine>>,
    /// sha256 of each file as compiled, in the order of [`PolicySpec::resolved`].
    digests: Arc<Vec<String>>,
}

impl CompiledPolicy {
    /// Compiles `sources` (name, Rego text) into one engine; `Err` names the file and the position of the first
    /// error.
    ///
    /// ```
    /// use hook_config::CompiledPolicy;
    /// let rego = "package hooks\ndefault decision := {\"decision\": \"pass\"}\n".to_owned();
    /// let policy = CompiledPolicy::compile(vec![("hooks.rego".into(), rego)]).unwrap();
    /// let value = policy.with_engine(|engine| engine.eval_rule("data.hooks.decision".into()).unwrap());
    /// assert_eq!(value["decision"], regorus::Value::from("pass"));
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
        // trivial query prepares the whole policy.
        engine.eval_bool_query("true".into(), false).map_err(|e| e.to_string())?;
        Ok(CompiledPolicy { engine: Arc::new(Mutex::new(engine)), digests: Arc::new(digests) })
    }

    /// Runs `f` with an engine of its own: the compiled one when no other evaluation holds it, else a copy.
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut regorus::Engine) -> R) -> R {
        match self.engine.try_lock() {
            Ok(mut engine) => f(&mut engine),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => f(&mut poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                let mut copy = match self.engine.lock() {
                    Ok(engine) => engine.clone(),
                    Err(poisoned) => poisoned.into_inner().clone(),
                };
                f(&mut copy)
            }
        }
    }

    /// The packages the files define, as `data.<package>` paths.
    pub fn packages(&self) -> Vec<String> {
        self.with_engine(|engine| engine.get_packages().unwrap_or_default())
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
