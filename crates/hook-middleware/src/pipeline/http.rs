//! `http` hooks: the payload POSTed to the hook's URL, the answer read in the hook's format (docs/policy.md).
//!
//! One deadline — the hook's timeout, clamped by the host's [`Limits`] — covers connecting, sending and reading;
//! the answer is read up to the host's capture limit. Redirects are refused, no proxy is used, TLS is rustls with
//! the webpki roots. A request that cannot be made (a header reads a variable that is not set, a refused
//! connection, a TLS error), a timeout, a redirect, a status other than 2xx, an answer past the limit and an answer
//! that is not what the format expects are failures of the hook: its `on_error` applies, so a native gate denies
//! with a reason that names the failure, and an observer logs an Error entry. Header values are never logged or
//! recorded; a receipt records the status and the duration.
//!
//! The request runs on a thread of its own ([`exchange`]): the dispatch stops waiting for it at the hook's deadline
//! whatever it is blocked on, and at once when the dispatch is cancelled (a deny above, the dispatch deadline); the
//! request itself ends by the client's own deadline, holding up nothing.

use std::time::{Duration, Instant};

use hook_config::{HookDecl, HttpFormat, HttpSpec};
use hook_exec::{Exit, RunResult};
use hook_types::{Limits, OnError, Protocol, RunStatus};
use serde_json::{Value, json};

use super::inprocess;
use super::record::Record;
use crate::EventInput;
use crate::protocol::{self, HookRules, payload, payload_object, policy_answer};

/// What came back from one request.
pub(crate) struct Answer {
    /// The status, when the server answered.
    pub status: Option<u16>,
    /// The body, up to the limit.
    pub body: Vec<u8>,
    /// Why the request failed, in words that name no header value.
    pub error: Option<Failure>,
    /// From before the connect to the last byte read.
    pub duration: Duration,
}

/// How a request failed.
pub(crate) enum Failure {
    /// The deadline passed.
    Timeout,
    /// Anything else.
    Other(String),
}

/// A request ready to send: everything owned, so it can move to the blocking pool.
pub(crate) struct Request {
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    timeout: Duration,
    limit: u64,
}

/// Builds the request of one run: the body in the hook's format, the headers filled from the environment.
pub(crate) fn prepare(
    spec: &HttpSpec,
    input: &EventInput,
    limits: &Limits,
    timeout_ms: u64,
) -> Result<Request, String> {
    let body = match spec.format {
        HttpFormat::Native => payload(Protocol::Native, input),
        HttpFormat::Claude => payload(Protocol::Claude, input),
        HttpFormat::Opa => {
            let input = Value::Object(payload_object(Protocol::Native, input));
            serde_json::to_vec(&json!({ "input": input })).map_err(|e| e.to_string())?
        }
    };
    let mut headers = Vec::with_capacity(spec.headers.len());
    for (name, value) in &spec.headers {
        // Claude Code's rule where it lists the variables: a listed one as set (empty if not), any other empty.
        // Elsewhere a variable that is not set fails the hook rather than send a header without its secret.
        let filled = hook_config::expand_env_refs(value, |var| match &spec.allowed_env_vars {
            Some(allowed) if allowed.iter().any(|a| a == var) => Some(std::env::var(var).unwrap_or_default()),
            Some(_) => Some(String::new()),
            None => std::env::var(var).ok(),
        });
        match filled {
            Ok(filled) => headers.push((name.clone(), filled)),
            Err(var) => {
                return Err(format!(
                    "was not sent: its header `{name}` reads `${var}`, which is not set in the host's environment"
                ));
            }
        }
    }
    Ok(Request {
        url: spec.url.clone(),
        headers,
        body,
        timeout: Duration::from_millis(timeout_ms),
        limit: limits.capture_limit_bytes as u64,
    })
}

/// How waiting for one request ended.
pub(crate) enum Exchange {
    /// The answer, or the failure; at the request's deadline a timeout, whatever the request is doing then.
    Answered(Answer),
    /// The caller stopped waiting first.
    Stopped,
    /// Its thread could not be started, or ended without an answer.
    Lost(String),
}

/// Sends `request` on a thread of its own and waits for its answer until the request's deadline, or until `stop`
/// resolves. The deadline is decided here, not only by the client's own timer: nothing the request blocks on (a
/// name lookup, a TLS handshake, a server that trickles its answer) can hold the dispatch past it. A request given
/// up on ends by the client's timer, holding up nothing (a runtime shutting down would wait for a task of its
/// blocking pool, so it is a thread of its own).
pub(crate) async fn exchange(request: Request, stop: impl std::future::Future<Output = ()>) -> Exchange {
    let timeout = request.timeout;
    let (tx, sent) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("hook-http".into()).spawn(move || drop(tx.send(send(request))));
    if let Err(e) = spawned {
        return Exchange::Lost(format!("could not start: {e}"));
    }
    tokio::select! {
        biased;
        () = stop => Exchange::Stopped,
        answer = sent => match answer {
            Ok(answer) => Exchange::Answered(answer),
            Err(_) => Exchange::Lost("failed: its request ended without an answer".into()),
        },
        () = tokio::time::sleep(timeout) => Exchange::Answered(Answer {
            status: None,
            body: Vec::new(),
            error: Some(Failure::Timeout),
            duration: timeout,
        }),
    }
}

/// Sends one request and reads the answer, blocking; bounded by the request's deadline and limit.
pub(crate) fn send(request: Request) -> Answer {
    let start = Instant::now();
    let mut builder = crate::client::agent().post(&request.url).header("content-type", "application/json");
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let builder = builder.config().timeout_global(Some(request.timeout)).build();
    let failed = |error: ureq::Error, start: Instant| Answer {
        status: None,
        body: Vec::new(),
        error: Some(describe(error)),
        duration: start.elapsed(),
    };
    let mut response = match builder.send(&request.body[..]) {
        Ok(response) => response,
        Err(error) => return failed(error, start),
    };
    let status = response.status().as_u16();
    if (300..400).contains(&status) {
        let location = response.headers().get("location").and_then(|l| l.to_str().ok()).unwrap_or("nowhere");
        let location = protocol::sanitize_text(location);
        return Answer {
            status: Some(status),
            body: Vec::new(),
            error: Some(Failure::Other(format!(
                "answered with a redirect (HTTP {status} to `{location}`); redirects are refused"
            ))),
            duration: start.elapsed(),
        };
    }
    match response.body_mut().with_config().limit(request.limit).read_to_vec() {
        Ok(body) => Answer { status: Some(status), body, error: None, duration: start.elapsed() },
        Err(ureq::Error::BodyExceedsLimit(limit)) => Answer {
            status: Some(status),
            body: Vec::new(),
            error: Some(Failure::Other(format!("answered with a body past the limit of {limit} bytes"))),
            duration: start.elapsed(),
        },
        Err(error) => Answer { status: Some(status), ..failed(error, start) },
    }
}

fn describe(error: ureq::Error) -> Failure {
    match error {
        ureq::Error::Timeout(_) => Failure::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Failure::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            Failure::Other("could not connect: the connection was refused".into())
        }
        ureq::Error::BadUri(uri) => Failure::Other(format!("has an invalid URL: {uri}")),
        // Header errors would quote the header: name none of it.
        ureq::Error::Http(_) => Failure::Other("could not build the request (a header value is not valid)".into()),
        other => Failure::Other(format!("failed: {}", protocol::sanitize_text(&other.to_string()))),
    }
}

/// Fills `record` from an answer, in the hook's format.
pub(crate) fn interpret(
    record: &mut Record,
    decl: &HookDecl,
    spec: &HttpSpec,
    input: &EventInput,
    timeout_ms: u64,
    answer: Answer,
) {
    let event = &input.event;
    let deny = decl.on_error == OnError::Deny;
    record.http_status = answer.status;
    record.output_bytes = answer.body.len() as u64;
    record.set_duration(answer.duration);
    let url = protocol::sanitize_text(&spec.url);
    match answer.error {
        Some(Failure::Timeout) => {
            record.fail(event, deny, &format!("timed out after {timeout_ms} ms waiting for `{url}`"));
            record.summary.status = RunStatus::TimedOut;
            record.bound = Some(hook_types::Bound::Time);
            return;
        }
        Some(Failure::Other(why)) => {
            record.fail(event, deny, &format!("{why} (`{url}`)"));
            return;
        }
        None => {}
    }
    let status = answer.status.unwrap_or(0);
    if !(200..300).contains(&status) {
        record.fail(event, deny, &format!("got HTTP {status} from `{url}`; expected a 2xx answer"));
        return;
    }
    let text = answer.body.trim_ascii();
    match spec.format {
        HttpFormat::Native | HttpFormat::Claude => {
            if !text.is_empty() && text.first() != Some(&b'{') {
                record.fail(event, deny, &format!("answered with a body that is not a JSON object (`{url}`)"));
                return;
            }
            let protocol = if spec.format == HttpFormat::Claude { Protocol::Claude } else { Protocol::Native };
            let rules = HookRules {
                hook_id: &decl.id,
                protocol,
                on_error: decl.on_error,
                as_mode: hook_config::AsMode::default_for(event),
                timeout_ms: Some(timeout_ms),
            };
            let run = RunResult { exit: Some(Exit::Code(0)), stdout: text.to_vec(), ..Default::default() };
            let interpretation = protocol::interpret(&rules, input, &run);
            record.summary.status = interpretation.status;
            record.summary.entries.extend(interpretation.entries);
            record.emitted = interpretation.effects.iter().map(hook_types::Effect::kind).collect();
            record.effects = interpretation.effects;
            record.decision = interpretation.decision;
            // An http answer is no command's answer: nothing for a bridge to replay.
            record.summary.replay = None;
        }
        HttpFormat::Opa => {
            let parsed: Result<Value, _> = serde_json::from_slice(text);
            let result = match parsed {
                Ok(Value::Object(mut object)) => policy_answer(&decl.id, object.remove("result").as_ref()),
                Ok(other) => Err(format!("expected `{{\"result\": …}}`, found {}", protocol::json_type_name(&other))),
                Err(e) => Err(format!("the answer is not JSON: {e}")),
            };
            match result {
                Ok((effects, decision)) => inprocess::apply(record, input, deny, effects, decision),
                Err(why) => record.fail(event, deny, &format!("answered wrongly (`{url}`): {why}")),
            }
        }
    }
}
