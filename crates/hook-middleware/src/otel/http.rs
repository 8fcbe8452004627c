//! The OTLP exporter's HTTP client: one blocking HTTP/1.1 POST per batch over a plain TCP connection, on the
//! exporter's own thread, with a connect, write and read timeout and a bounded response. `http://` only: this build
//! carries no TLS stack (an `https://` endpoint is refused when the exporter is set up, with a message saying so).

use std::fmt;
use std::future::Future;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use opentelemetry_http::{HttpClient, HttpError};

/// The most of a collector's response read (its status line is what counts).
const RESPONSE_LIMIT: u64 = 64 * 1024;

/// See the [module docs](self).
#[derive(Clone)]
pub(super) struct PlainHttp {
    pub(super) timeout: Duration,
}

impl fmt::Debug for PlainHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlainHttp").field("timeout", &self.timeout).finish()
    }
}

impl PlainHttp {
    fn post(&self, request: &Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let uri = request.uri();
        if uri.scheme_str() != Some("http") {
            return Err(format!("`{uri}`: only `http://` endpoints are supported by this build").into());
        }
        let host = uri.host().ok_or_else(|| format!("`{uri}` names no host"))?;
        let port = uri.port_u16().unwrap_or(80);
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        let mut last = None;
        let mut stream = None;
        for address in (host, port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&address, self.timeout) {
                Ok(connected) => {
                    stream = Some(connected);
                    break;
                }
                Err(error) => last = Some(error),
            }
        }
        let mut stream = match (stream, last) {
            (Some(stream), _) => stream,
            (None, Some(error)) => return Err(error.into()),
            (None, None) => return Err(format!("`{host}` resolves to no address").into()),
        };
        stream.set_write_timeout(Some(self.timeout))?;
        stream.set_read_timeout(Some(self.timeout))?;
        let body = request.body();
        let mut head = format!("POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n");
        for (name, value) in request.headers() {
            if name == http::header::CONTENT_LENGTH || name == http::header::HOST || name == http::header::CONNECTION {
                continue;
            }
            let value = value.to_str().map_err(|_| format!("header `{name}` is not printable ASCII"))?;
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()?;
        let mut answer = Vec::new();
        stream.take(RESPONSE_LIMIT).read_to_end(&mut answer)?;
        let status_line = answer.split(|b| *b == b'\n').next().unwrap_or_default();
        let status = std::str::from_utf8(status_line)
            .ok()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or("the collector's answer is not HTTP")?;
        let body_at = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |at| at + 4);
        let body = Bytes::copy_from_slice(&answer[body_at..]);
        Ok(Response::builder().status(status).body(body)?)
    }
}

impl HttpClient for PlainHttp {
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        // Blocking, on the exporter's own thread (never a runtime's): the future is ready when first polled.
        let answer = self.post(&request);
        Box::pin(std::future::ready(answer))
    }
}
