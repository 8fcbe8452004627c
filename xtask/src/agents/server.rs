//! The scripted model server: plain HTTP/1.1 on 127.0.0.1, one scripted conversation per scenario.
//!
//! Each agent talks to it as to its model provider. A request that is a turn of the main conversation (the agent's
//! [`Wire::route`] says which) takes the next [`Step`] of the script and is answered in that agent's wire format; a
//! side request (a loop check, a token count, a probe) gets the wire's canned answer; a turn past the end of the
//! script gets HTTP 400, which ends the agent's run instead of letting it retry. Every request body is logged, so a
//! scenario can assert what the model saw.
//!
//! Bounded everywhere: a request limit per server, a read timeout per connection, a lifetime after which the
//! server stops accepting, and `Connection: close` on every answer (keep-alive would let an agent pipeline past the
//! request limit).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// One scripted model turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Call the agent's shell tool with this command line.
    Shell(String),
    /// Call the shell tool with this command line, asking to run it outside the sandbox where the agent has one
    /// (Codex's `sandbox_permissions: "require_escalated"`), so that it needs the approver.
    Escalated(String),
    /// Answer with this text and end the turn.
    Text(String),
}

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON answer with status 200.
    pub fn json(value: &serde_json::Value) -> Reply {
        Reply { status: 200, content_type: "application/json", body: value.to_string().into_bytes() }
    }

    /// A server-sent-events answer with status 200.
    pub fn sse(text: String) -> Reply {
        Reply { status: 200, content_type: "text/event-stream", body: text.into_bytes() }
    }

    /// An error answer with a JSON body naming `message`.
    pub fn error(status: u16, message: &str) -> Reply {
        let body = serde_json::json!({"error": {"type": "invalid_request_error", "code": status, "message": message}});
        Reply { status, content_type: "application/json", body: body.to_string().into_bytes() }
    }
}

/// Where a request goes.
pub enum Route {
    /// A turn of the main conversation: it takes the next step of the script.
    Turn,
    /// Anything else, answered as given.
    Reply(Reply),
}

/// An agent's wire format: which requests are turns, and how a turn is answered.
pub trait Wire: Send + Sync {
    /// Sorts one request.
    fn route(&self, method: &str, path: &str, body: &serde_json::Value) -> Route;
    /// The answer to turn number `turn` (0-based), scripted as `step`.
    fn turn(&self, step: &Step, turn: usize) -> Reply;
}

/// One logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The method.
    pub method: String,
    /// The request target (path and query).
    pub path: String,
    /// The body as text.
    pub body: String,
    /// The turn number when it was a turn of the main conversation.
    pub turn: Option<usize>,
    /// The status answered.
    pub status: u16,
}

/// The bounds of one server.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Requests answered at most; later ones get 429 and are not read.
    pub max_requests: usize,
    /// How long the server accepts connections.
    pub lifetime: Duration,
    /// Read and write timeout of one connection.
    pub io_timeout: Duration,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { max_requests: 60, lifetime: Duration::from_secs(240), io_timeout: Duration::from_secs(20) }
    }
}

struct Shared {
    wire: Box<dyn Wire>,
    script: Vec<Step>,
    next_turn: Mutex<usize>,
    log: Mutex<Vec<Logged>>,
    accepted: AtomicUsize,
    stop: AtomicBool,
    bounds: Bounds,
}

/// A running model server; stopped when dropped.
pub struct Server {
    port: u16,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts a server on 127.0.0.1 with an ephemeral port.
    pub fn start(wire: Box<dyn Wire>, script: Vec<Step>, bounds: Bounds) -> Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0").context("cannot listen on 127.0.0.1")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared {
            wire,
            script,
            next_turn: Mutex::new(0),
            log: Mutex::new(Vec::new()),
            accepted: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            bounds,
        });
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::spawn(move || accept_loop(&listener, &accept_shared));
        Ok(Server { port, shared, accept: Some(accept) })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request so far, in the order they were read.
    pub fn requests(&self) -> Vec<Logged> {
        self.shared.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The turns of the main conversation so far, in order.
    pub fn turns(&self) -> Vec<Logged> {
        let mut turns: Vec<Logged> = self.requests().into_iter().filter(|r| r.turn.is_some()).collect();
        turns.sort_by_key(|r| r.turn);
        turns
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let started = Instant::now();
    while !shared.stop.load(Ordering::SeqCst) && started.elapsed() < shared.bounds.lifetime {
        match listener.accept() {
            Ok((stream, _)) => {
                let n = shared.accepted.fetch_add(1, Ordering::SeqCst);
                let shared = Arc::clone(shared);
                std::thread::spawn(move || {
                    let _ = serve(stream, &shared, n);
                });
            }
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// A parsed request.
struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn serve(stream: TcpStream, shared: &Shared, n: usize) -> Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(shared.bounds.io_timeout))?;
    stream.set_write_timeout(Some(shared.bounds.io_timeout))?;
    let mut writer = stream.try_clone()?;
    if n >= shared.bounds.max_requests {
        return write_reply(&mut writer, "GET", &Reply::error(429, "the scenario's request limit was reached"));
    }
    let request = read_request(&mut BufReader::new(stream))?;
    let body_text = String::from_utf8_lossy(&request.body).into_owned();
    let json = serde_json::from_slice(&request.body).unwrap_or(serde_json::Value::Null);
    let (reply, turn) = match shared.wire.route(&request.method, &request.path, &json) {
        Route::Reply(reply) => (reply, None),
        Route::Turn => {
            let mut next = shared.next_turn.lock().unwrap_or_else(|e| e.into_inner());
            let turn = *next;
            *next += 1;
            let reply = match shared.script.get(turn) {
                Some(step) => shared.wire.turn(step, turn),
                None => Reply::error(400, "the scripted conversation is over"),
            };
            (reply, Some(turn))
        }
    };
    shared.log.lock().unwrap_or_else(|e| e.into_inner()).push(Logged {
        method: request.method.clone(),
        path: request.path,
        body: body_text,
        turn,
        status: reply.status,
    });
    write_reply(&mut writer, &request.method, &reply)
}

/// The largest request body read (agents send the whole conversation each turn: tens of kilobytes).
const MAX_BODY: usize = 32 * 1024 * 1024;

fn read_request(reader: &mut BufReader<TcpStream>) -> Result<Request> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().context("empty request")?.to_owned();
    let path = parts.next().context("no request target")?.to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse().context("bad content-length")?;
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let body = if chunked { read_chunked(reader)? } else { read_exact(reader, length.min(MAX_BODY))? };
    Ok(Request { method, path, body })
}

fn read_exact(reader: &mut impl Read, length: usize) -> Result<Vec<u8>> {
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

fn read_chunked(reader: &mut BufReader<TcpStream>) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).context("bad chunk")?;
        if size == 0 || body.len() + size > MAX_BODY {
            let mut trailer = String::new();
            while reader.read_line(&mut trailer)? > 2 {
                trailer.clear();
            }
            return Ok(body);
        }
        body.extend(read_exact(reader, size)?);
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

fn write_reply(writer: &mut TcpStream, method: &str, reply: &Reply) -> Result<()> {
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        _ => "Status",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    );
    writer.write_all(head.as_bytes())?;
    if method != "HEAD" {
        writer.write_all(&reply.body)?;
    }
    writer.flush()?;
    let _ = writer.shutdown(std::net::Shutdown::Both);
    Ok(())
}
