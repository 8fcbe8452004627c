//! The interpreter behind [`CompiledPolicy`](super::CompiledPolicy) (feature `policy`): regorus, Microsoft's Rego
//! interpreter, with nothing of it outside this module.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use regorus::utils::limits::ExecutionTimerConfig;

use super::PolicyError;

/// How many engines a policy keeps for its next evaluations (as many as ever ran at once, up to this).
const SPARE_ENGINES: usize = 4;

/// The compiled files, and the engines that evaluate them (see [`CompiledPolicy`](super::CompiledPolicy)).
#[derive(Clone)]
pub(super) struct Engine {
    /// Prepared at compile time and never evaluated on; locked for a copy or a look at its packages.
    template: Arc<Mutex<regorus::Engine>>,
    /// Engines that finished an evaluation, for the next ones (a copy costs more than the evaluation of a small
    /// policy): at most [`SPARE_ENGINES`].
    spare: Arc<Mutex<Vec<regorus::Engine>>>,
}

impl Engine {
    /// Compiles `sources` (name, Rego text) into one engine; `Err` names the file and the position of the first
    /// error.
    pub(super) fn compile(sources: Vec<(String, String)>) -> Result<Engine, String> {
        let mut engine = regorus::Engine::new();
        // An error rather than a silent `undefined` when a builtin fails (a bad regex): the hook fails closed.
        engine.set_strict_builtin_errors(true);
        for (name, text) in sources {
            engine.add_policy(name, text).map_err(|e| e.to_string())?;
        }
        // The analysis and scheduling an engine does before its first evaluation, done here, once per load: a
        // trivial query prepares the whole policy, and every copy starts prepared.
        engine.eval_bool_query("true".into(), false).map_err(|e| e.to_string())?;
        Ok(Engine { template: Arc::new(Mutex::new(engine)), spare: Arc::new(Mutex::new(Vec::new())) })
    }

    /// See [`CompiledPolicy::evaluate`](super::CompiledPolicy::evaluate).
    pub(super) fn evaluate(
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

    /// The packages the files define, as `data.<package>` paths.
    pub(super) fn packages(&self) -> Vec<String> {
        let template = self.template.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        template.get_packages().unwrap_or_default()
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
