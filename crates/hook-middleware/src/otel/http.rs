//! The OTLP exporter's HTTP client: one blocking POST per batch, on the exporter's own thread, through the same
//! `ureq` agent as the http hook kind (rustls for `https://`, no redirects followed, no proxy from the environment),
//! with one deadline over connect, send and read and a bounded response.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use opentelemetry_http::{HttpClient, HttpError};

/// The most of a collector's response read (its status is what counts).
const RESPONSE_LIMIT: u64 = 64 * 1024;

/// See the [module docs](self).
#[derive(Clone)]
pub(super) struct CollectorHttp {
    pub(super) timeout: Duration,
}

impl fmt::Debug for CollectorHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CollectorHttp").field("timeout", &self.timeout).finish()
    }
}

impl CollectorHttp {
    fn post(&self, request: &Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let mut builder = crate::client::agent().post(request.uri().to_string());
        for (name, value) in request.headers() {
            if name == http::header::CONTENT_LENGTH || name == http::header::HOST {
                continue;
            }
            let value = value.to_str().map_err(|_| format!("header `{name}` is not printable ASCII"))?;
            builder = builder.header(name.as_str(), value);
        }
        let builder = builder.config().timeout_global(Some(self.timeout)).build();
        let mut response = builder.send(&request.body()[..]).map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let body = response.body_mut().with_config().limit(RESPONSE_LIMIT).read_to_vec().map_err(|e| e.to_string())?;
        Ok(Response::builder().status(status).body(Bytes::from(body))?)
    }
}

impl HttpClient for CollectorHttp {
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
