//! OpenTelemetry export end to end: a real `hook run` with the standard `OTEL_EXPORTER_OTLP_*` variables sends its
//! dispatch as OTLP/HTTP protobuf to a collector of our own on 127.0.0.1, which decodes and checks the spans.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use common::Env;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// One request the collector received: its path, content type and decoded body.
struct Received {
    path: String,
    content_type: String,
    request: ExportTraceServiceRequest,
}

/// A one-thread OTLP/HTTP collector on 127.0.0.1 that answers 200 to every request and hands each decoded request
/// to the test. It serves for at most 60 s.
fn collector() -> (String, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (sender, receiver) = mpsc::channel();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < until {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            stream.set_nonblocking(false).unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(stream);
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
            let (mut length, mut content_type) = (0usize, String::new());
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "content-type" => content_type = value.trim().to_owned(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut stream = reader.into_inner();
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n");
            let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
            if sender.send(Received { path, content_type, request }).is_err() {
                return;
            }
        }
    });
    (endpoint, receiver)
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attributes.iter().find(|a| a.key == key).and_then(|a| a.value.as_ref()).and_then(|v: &AnyValue| v.value.as_ref())
}

fn text(span: &Span, key: &str) -> String {
    match attribute(&span.attributes, key) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        other => panic!("span `{}` has no string `{key}`: {other:?}", span.name),
    }
}

/// Runs `hook run pre_tool` on `rm -rf /` in the `gates` fixture with the exporter pointed at `endpoint`.
fn run_gate(env: &Env, endpoint: &str, payload: bool) -> common::Out {
    let input = r#"{"command":"rm -rf /"}"#;
    let mut command = env.command(&["run", "pre_tool", "--tool", "shell", "--input", input, "--trust-workspace"]);
    command.env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint).env("OTEL_SERVICE_NAME", "hook-under-test");
    command.env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").env_remove("OTEL_SDK_DISABLED");
    if payload {
        command.env("HOOK_OTEL_PAYLOAD", "1");
    } else {
        command.env_remove("HOOK_OTEL_PAYLOAD");
    }
    env.finish(command)
}

/// Every span of one request, with the resource's `service.name`.
fn spans_of(received: &Received) -> (String, Vec<Span>) {
    let resource = received.request.resource_spans.first().expect("one resource");
    let service = match resource.resource.as_ref().and_then(|r| attribute(&r.attributes, "service.name")) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        other => panic!("no service.name: {other:?}"),
    };
    let spans = received.request.resource_spans.iter().flat_map(|r| &r.scope_spans).flat_map(|s| s.spans.clone());
    (service, spans.collect())
}

#[test]
fn a_hook_run_exports_its_dispatch_and_each_hook_as_spans_to_an_otlp_collector() {
    let (endpoint, received) = collector();
    let env = Env::new("gates");
    let out = run_gate(&env, &endpoint, false);
    assert_eq!(out.code, 2, "the dispatch decides as without export: {out:#?}");
    assert!(!out.stderr.contains("OpenTelemetry"), "{out:#?}");

    let request = received.recv_timeout(Duration::from_secs(20)).expect("the collector got the spans");
    assert_eq!(request.path, "/v1/traces");
    assert_eq!(request.content_type, "application/x-protobuf");
    let (service, spans) = spans_of(&request);
    assert_eq!(service, "hook-under-test");

    let dispatches: Vec<&Span> = spans.iter().filter(|s| s.name == "hook_dispatch").collect();
    assert_eq!(dispatches.len(), 1, "{spans:#?}");
    let dispatch = dispatches[0];
    assert_eq!(text(dispatch, "hook.event"), "pre_tool");
    assert_eq!(text(dispatch, "hook.tool_name"), "shell");
    assert_eq!(text(dispatch, "hook.verdict"), "deny");

    let runs: Vec<&Span> = spans.iter().filter(|s| s.name == "hook_run").collect();
    let ids: Vec<String> = runs.iter().map(|s| text(s, "hook.id")).collect();
    assert_eq!(ids, ["gates.decide", "gates.protect-env"], "one child span per hook, in the order of the runs");
    for run in &runs {
        assert_eq!(run.trace_id, dispatch.trace_id);
        assert_eq!(run.parent_span_id, dispatch.span_id, "a child of the dispatch's span");
        assert_eq!(text(run, "hook.event"), "pre_tool");
        assert_eq!(text(run, "hook.origin"), "project");
        assert_eq!(text(run, "hook.hash").len(), 16);
        assert!(attribute(&run.attributes, "hook.duration_ms").is_some());
        assert!(run.end_time_unix_nano >= run.start_time_unix_nano);
    }
    let decide = runs.iter().find(|s| text(s, "hook.id") == "gates.decide").unwrap();
    assert_eq!((text(decide, "hook.kind"), text(decide, "hook.status")), ("command".into(), "blocked".into()));
    assert_eq!(attribute(&decide.attributes, "hook.exit_code"), Some(&any_value::Value::IntValue(2)));

    // No payload content unless the operator opts in.
    let everything = format!("{:?}", request.request);
    assert!(!everything.contains("rm -rf"), "payload content was exported: {everything}");

    let out = run_gate(&env, &endpoint, true);
    assert_eq!(out.code, 2, "{out:#?}");
    let request = received.recv_timeout(Duration::from_secs(20)).expect("the second run's spans");
    let (_, spans) = spans_of(&request);
    let dispatch = spans.iter().find(|s| s.name == "hook_dispatch").unwrap();
    assert_eq!(text(dispatch, "hook.tool_input"), r#"{"command":"rm -rf /"}"#);
    assert_eq!(text(dispatch, "hook.reason"), "rm -rf is refused by gates.decide");
}

#[test]
fn a_collector_that_is_down_never_fails_or_changes_a_dispatch() {
    // A port that was just free: nothing listens there.
    let endpoint = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let env = Env::new("gates");
    let out = run_gate(&env, &endpoint, false);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("OpenTelemetry: 0 span(s) dropped (queue full), 3 not delivered"), "{out:#?}");
}

#[test]
fn an_export_this_build_cannot_do_is_said_not_skipped_in_silence() {
    let env = Env::new("gates");
    let mut command = env.command(&["run", "turn_start", "--trust-workspace"]);
    command.env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317").env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc");
    let out = env.finish(command);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr.contains(
            "hook: warning: OpenTelemetry export is off: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: this build exports over \
             OTLP/HTTP with protobuf only: set it to `http/protobuf`"
        ),
        "{out:#?}"
    );
}

#[test]
fn an_https_endpoint_is_tried_with_tls_and_a_failed_handshake_only_counts_as_not_delivered() {
    // A listener that speaks no TLS: it reads the client's hello and hangs up, so the handshake fails.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("https://{}", listener.local_addr().unwrap());
    let hellos = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn({
        let hellos = std::sync::Arc::clone(&hellos);
        move || {
            let until = std::time::Instant::now() + Duration::from_secs(60);
            while std::time::Instant::now() < until {
                let Ok((mut stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                stream.set_nonblocking(false).unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut first = [0u8; 1];
                // A TLS record of type handshake (22) opens the connection: the exporter asked for TLS.
                if std::io::Read::read_exact(&mut stream, &mut first).is_ok() && first[0] == 22 {
                    hellos.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    });
    let env = Env::new("gates");
    let out = run_gate(&env, &endpoint, false);
    assert_eq!(out.code, 2, "{out:#?}");
    assert!(out.stderr.contains("3 not delivered"), "{out:#?}");
    assert!(!out.stderr.contains("export is off"), "{out:#?}");
    assert!(hellos.load(std::sync::atomic::Ordering::SeqCst) >= 1, "no TLS hello reached the endpoint");
}
