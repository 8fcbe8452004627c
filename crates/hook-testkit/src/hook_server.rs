//! A test HTTP server for `http` hooks, shared by the test suites and the benchmarks (the `hook-server` feature).
//! It listens on 127.0.0.1 only, on a port the OS picks, and everything it does is bounded: requests of
//! at most 64 KiB of headers and 4 MiB of body, a connection idle for 5 s is closed, at most 64 connections at a
//! time, a `slow` answer waits at most 10 s, and dropping the server stops it.
//!
//! Routes (`POST`):
//! - `/native/deny`, `/native/allow`, `/native/pass`: a native hook answer (`{"decision": …}`, `{}`).
//! - `/claude/deny`: a Claude Code `PreToolUse` answer denying with `permissionDecision`.
//! - `/opa/deny`: an OPA data API answer, `{"result": {"decision": "deny", …}}`.
//! - `/slow/<ms>`: waits, then answers `{}`.
//! - `/status/<code>`: that status.
//! - `/redirect`: `302` to `/native/allow`.
//! - `/oversized`: a 2xx whose body is 4 MiB.
//! - `/invalid`: a 2xx whose body is not JSON.
//! - Anything that starts a TLS handshake: the connection is closed (the server speaks plain HTTP).
//! - `/v1/data/<path>`: an OPA-compatible data API backed by regorus on the Rego files the server was started
//!   with: `{"input": …}` in, `{"result": <data.<path>>}` out (`{}` when undefined), as OPA answers.
//!
//! ```
//! use std::io::{Read, Write};
//! use hook_testkit::hook_server::HookServer;
//!
//! let server = HookServer::start(&[]);
//! let url = server.url("/native/deny");
//! let addr = url.trim_start_matches("http://").split('/').next().unwrap();
//! let mut stream = std::net::TcpStream::connect(addr).unwrap();
//! stream.write_all(b"POST /native/deny HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}").unwrap();
//! stream.shutdown(std::net::Shutdown::Write).unwrap(); // one request: the server then closes
//! let mut answer = String::new();
//! stream.read_to_string(&mut answer).unwrap();
//! assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("deny"), "{answer}");
//! assert_eq!(server.seen()[0].path, "/native/deny");
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

const MAX_HEADER_BYTES: usize = 64 * 1024;
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
const MAX_CONNECTIONS: usize = 64;
const IDLE: Duration = Duration::from_secs(5);
const MAX_SLOW: Duration = Duration::from_secs(10);

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The path.
    pub path: String,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// The running server; stopped on drop.
pub struct HookServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
    live: AtomicUsize,
    engine: Option<Mutex<regorus::Engine>>,
}

impl HookServer {
    /// Starts a server; `rego` (name, text) backs the `/v1/data/` endpoint.
    pub fn start(rego: &[(String, String)]) -> HookServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let engine = (!rego.is_empty()).then(|| {
            let mut engine = regorus::Engine::new();
            engine.set_strict_builtin_errors(true);
            for (name, text) in rego {
                engine.add_policy(name.clone(), text.clone()).expect("the test server's Rego compiles");
            }
            Mutex::new(engine)
        });
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared { stop: stop.clone(), seen: seen.clone(), live: AtomicUsize::new(0), engine });
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                if shared.live.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    shared.live.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &shared);
                    shared.live.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        HookServer { addr, stop, seen, accept: Some(accept) }
    }

    /// A server with the Rego files under `dir` (every `*.rego`, sorted) behind `/v1/data/`.
    pub fn with_rego_dir(dir: &std::path::Path) -> HookServer {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rego"))
            .collect();
        files.sort();
        let rego: Vec<(String, String)> =
            files.iter().map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap())).collect();
        HookServer::start(&rego)
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for HookServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

/// A port nothing listens on (bound, then released): a connection to it is refused.
pub fn refused_url(path: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}{path}")
}

fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(IDLE))?;
    stream.set_write_timeout(Some(IDLE))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some(request) = read_request(&mut reader)? else { return Ok(()) };
        shared.seen.lock().unwrap().push(request.clone());
        let (status, extra, body) = answer(&request, shared);
        let mut head =
            format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n", body.len());
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        // One write, and no Nagle delay: a client that waits for the rest of an answer never waits 40 ms for it.
        let mut answer = head.into_bytes();
        answer.extend_from_slice(&body);
        writer.write_all(&answer)?;
        writer.flush()?;
    }
}

/// One request, or `None` at the end of the connection.
fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<Seen>> {
    // A TLS ClientHello (record type 22): this server speaks plain HTTP, so it hangs up, as a real one would.
    if reader.fill_buf()?.first() == Some(&0x16) {
        return Err(std::io::Error::other("a TLS handshake on a plain HTTP server"));
    }
    let mut head = Vec::new();
    let mut line = Vec::new();
    let mut first = true;
    let mut path = String::new();
    let mut headers = Vec::new();
    loop {
        line.clear();
        let n = reader.by_ref().take(MAX_HEADER_BYTES as u64).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&line);
        if head.len() > MAX_HEADER_BYTES {
            return Err(std::io::Error::other("headers too large"));
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
        if first {
            path = text.split(' ').nth(1).unwrap_or("/").to_owned();
            first = false;
            continue;
        }
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    if length > MAX_BODY_BYTES {
        return Err(std::io::Error::other("body too large"));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Seen { path, headers, body }))
}

type Answer = (u16, Vec<(&'static str, String)>, Vec<u8>);

fn json(status: u16, value: serde_json::Value) -> Answer {
    (status, Vec::new(), serde_json::to_vec(&value).unwrap())
}

fn answer(request: &Seen, shared: &Shared) -> Answer {
    let path = request.path.as_str();
    match path {
        "/native/deny" => json(200, serde_json::json!({"decision": "deny", "reason": "denied by the test server"})),
        "/native/allow" => json(200, serde_json::json!({"decision": "allow", "reason": "the test server allows"})),
        "/native/pass" => (200, Vec::new(), Vec::new()),
        "/claude/deny" => json(
            200,
            serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                               "permissionDecisionReason": "denied by the test server"}}),
        ),
        "/opa/deny" => {
            json(200, serde_json::json!({"result": {"decision": "deny", "reason": "denied by the test server"}}))
        }
        "/redirect" => (302, vec![("location", "/native/allow".to_owned())], Vec::new()),
        "/oversized" => (200, Vec::new(), vec![b' '; MAX_BODY_BYTES]),
        "/invalid" => (200, Vec::new(), b"{\"decision\": \"deny\", oops".to_vec()),
        _ => {
            if let Some(ms) = path.strip_prefix("/slow/").and_then(|ms| ms.parse::<u64>().ok()) {
                std::thread::sleep(Duration::from_millis(ms).min(MAX_SLOW));
                return json(200, serde_json::json!({}));
            }
            if let Some(code) = path.strip_prefix("/status/").and_then(|c| c.parse::<u16>().ok()) {
                return (code, Vec::new(), b"the test server fails on purpose".to_vec());
            }
            if let Some(rule) = path.strip_prefix("/v1/data/") {
                return opa(rule, &request.body, shared);
            }
            json(404, serde_json::json!({"error": "no such route"}))
        }
    }
}

/// OPA's data API: `POST /v1/data/a/b` with `{"input": …}` evaluates `data.a.b`.
fn opa(rule: &str, body: &[u8], shared: &Shared) -> Answer {
    let Some(engine) = &shared.engine else { return json(404, serde_json::json!({"error": "no policy loaded"})) };
    let input = match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut object)) => object.remove("input").unwrap_or(serde_json::Value::Null),
        _ => {
            return json(400, serde_json::json!({"code": "invalid_parameter", "message": "body is not a JSON object"}));
        }
    };
    let query = format!("data.{}", rule.trim_end_matches('/').replace('/', "."));
    let mut engine = engine.lock().unwrap_or_else(|p| p.into_inner());
    engine.set_input(regorus::Value::from(input));
    match engine.eval_rule(query) {
        Ok(regorus::Value::Undefined) => json(200, serde_json::json!({})),
        Ok(value) => json(200, serde_json::json!({"result": serde_json::to_value(&value).unwrap()})),
        Err(e) => json(500, serde_json::json!({"code": "internal_error", "message": e.to_string()})),
    }
}
