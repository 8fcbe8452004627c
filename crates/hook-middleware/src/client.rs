//! The one HTTP client of the process (ureq, TLS through rustls with the webpki roots): the http hook kind's
//! (feature `http`) and the OTLP exporter's (feature `otel`). Compiled only with one of them.

use std::sync::OnceLock;

/// The one client: no redirects followed, statuses returned rather than raised, no proxy from the environment.
pub(crate) fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .proxy(None)
            .user_agent(concat!("hook-engine/", env!("CARGO_PKG_VERSION")))
            .build()
            .into()
    })
}
