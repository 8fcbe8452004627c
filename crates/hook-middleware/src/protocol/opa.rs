//! The answer of a Rego policy — a `policy` hook's query value, or the `result` of an `opa`-format http hook —
//! as effects and a decision. One reading for both, so a policy answers the same in-process and behind an OPA
//! server (docs/policy.md).

use hook_types::{Decision, Effect};
use serde_json::{Map, Value};

use super::json_type_name;

/// What a policy's answer says: its effects (each checked against the event by the pipeline) and the decision it
/// states, if it states one (else the effects imply it).
pub type PolicyAnswer = (Vec<Effect>, Option<Decision>);

/// Reads a policy's answer.
///
/// - `None` (the rule is undefined for this input, or an OPA answer without `result`) is a failure: a policy that
///   has nothing to say must say so with a `default` rule, so a misspelt path never passes in silence.
/// - A list is a list of effects, in order (`[{"kind": "block_tool", "reason": "…"}]`).
/// - An object may hold `decision` (`allow`, `deny`, `ask` or `pass`), `reason` (a string) and `effects` (a list of
///   effects); nothing else. A `deny` without a reason is given the reason ``denied by policy `ID` `` (ID: the hook's id).
/// - Anything else is a failure.
///
/// ```
/// use hook_middleware::protocol::policy_answer;
/// use hook_types::Decision;
/// use serde_json::json;
/// let (effects, decision) =
///     policy_answer("no-force-push", Some(&json!({"decision": "deny", "reason": "no force push"}))).unwrap();
/// assert!(effects.is_empty());
/// assert_eq!(decision, Some(Decision::Deny { reason: "no force push".into() }));
/// let (effects, decision) = policy_answer("p", Some(&json!([{"kind": "block_tool", "reason": "no"}]))).unwrap();
/// assert_eq!((effects.len(), decision), (1, None));
/// assert!(policy_answer("p", None).unwrap_err().contains("undefined"));
/// assert!(policy_answer("p", Some(&json!(true))).is_err());
/// ```
pub fn policy_answer(hook_id: &str, answer: Option<&Value>) -> Result<PolicyAnswer, String> {
    match answer {
        None => Err("the policy's answer is undefined for this input (give the rule a `default`)".into()),
        Some(Value::Array(items)) => Ok((effects(items)?, None)),
        Some(Value::Object(object)) => object_answer(hook_id, object),
        Some(other) => Err(format!(
            "the policy answered with {}; expected a decision object (`{{\"decision\": \"deny\", \"reason\": …}}`) or \
             a list of effects",
            json_type_name(other)
        )),
    }
}

fn object_answer(hook_id: &str, object: &Map<String, Value>) -> Result<PolicyAnswer, String> {
    if let Some(key) = object.keys().find(|k| !matches!(k.as_str(), "decision" | "reason" | "effects")) {
        return Err(format!(
            "the policy's answer has an unknown field `{key}`; expected `decision`, `reason` and `effects`"
        ));
    }
    let reason = match object.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(reason)) => Some(reason.clone()),
        Some(other) => return Err(format!("`reason` must be a string, found {}", json_type_name(other))),
    };
    let effects = match object.get("effects") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => effects(items)?,
        Some(other) => return Err(format!("`effects` must be a list of effects, found {}", json_type_name(other))),
    };
    let decision = match object.get("decision") {
        None | Some(Value::Null) => None,
        Some(Value::String(word)) => Some(match word.as_str() {
            "deny" => Decision::Deny {
                reason: reason
                    .filter(|r| !r.trim().is_empty())
                    .unwrap_or_else(|| format!("denied by policy `{hook_id}`")),
            },
            "ask" => Decision::Ask { reason },
            "allow" => Decision::Allow { reason },
            "pass" => Decision::Pass,
            other => {
                return Err(format!("unknown decision `{other}`; expected `allow`, `deny`, `ask` or `pass`"));
            }
        }),
        Some(other) => return Err(format!("`decision` must be a string, found {}", json_type_name(other))),
    };
    Ok((effects, decision))
}

fn effects(items: &[Value]) -> Result<Vec<Effect>, String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| Effect::from_json(item).map_err(|e| format!("effect [{i}] of the policy's answer: {e}")))
        .collect()
}
