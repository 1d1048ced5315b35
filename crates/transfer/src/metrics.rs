//! `--metrics ADDR` on `convoy send` and `convoy recv`: the figures of the status file (and the receive's
//! progress) served over HTTP in the OpenMetrics text format that Prometheus scrapes.
//!
//! The page is rendered whole once a second by the transfer loop ([`MetricsPage::publish`]) with the
//! `prometheus-client` encoder and kept as text; a small thread ([`MetricsEndpoint`], `tiny_http`) answers every
//! `GET` with the latest page. A scrape therefore sees one consistent set of figures, never half an update, and
//! the transfer loop never waits for a scraper.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The content type of the OpenMetrics text format, which `prometheus-client` writes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Whether a figure only grows (a counter, named with `_total`) or goes up and down (a gauge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Grows only over the process's life (bytes sent, repairs).
    Counter,
    /// A reading that can fall (a rate, a loss ratio).
    Gauge,
}

/// One figure with its labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    /// The family name, `convoy_…` (a counter's `_total` is added by the encoder).
    pub name: &'static str,
    /// One line saying what it measures.
    pub help: &'static str,
    /// Counter or gauge.
    pub kind: Kind,
    /// Label pairs telling this member of the family from the others (a receiver's address).
    pub labels: Vec<(&'static str, String)>,
    /// The value.
    pub value: f64,
}

impl Metric {
    /// A gauge without labels.
    pub fn gauge(name: &'static str, help: &'static str, value: f64) -> Self {
        Metric {
            name,
            help,
            kind: Kind::Gauge,
            labels: Vec::new(),
            value,
        }
    }

    /// A counter without labels.
    pub fn counter(name: &'static str, help: &'static str, value: f64) -> Self {
        Metric {
            kind: Kind::Counter,
            ..Metric::gauge(name, help, value)
        }
    }

    /// The same figure with one more label.
    pub fn with(mut self, label: &'static str, value: impl ToString) -> Self {
        self.labels.push((label, value.to_string()));
        self
    }
}

type Labels = Vec<(&'static str, String)>;
type GaugeFamily = Family<Labels, Gauge<f64, AtomicU64>>;
type CounterFamily = Family<Labels, Counter<f64, AtomicU64>>;

/// The OpenMetrics text of `metrics`: one family per name (the first member's help and kind), members in the
/// order given.
pub fn render(metrics: &[Metric]) -> String {
    let mut registry = Registry::default();
    let mut gauges: Vec<(&str, GaugeFamily)> = Vec::new();
    let mut counters: Vec<(&str, CounterFamily)> = Vec::new();
    for m in metrics {
        match m.kind {
            Kind::Gauge => {
                let family = match gauges.iter().find(|(n, _)| *n == m.name) {
                    Some((_, f)) => f.clone(),
                    None => {
                        let f = GaugeFamily::default();
                        registry.register(m.name, m.help, f.clone());
                        gauges.push((m.name, f.clone()));
                        f
                    }
                };
                family.get_or_create(&m.labels).set(m.value);
            }
            Kind::Counter => {
                let family = match counters.iter().find(|(n, _)| *n == m.name) {
                    Some((_, f)) => f.clone(),
                    None => {
                        let f = CounterFamily::default();
                        registry.register(m.name, m.help, f.clone());
                        counters.push((m.name, f.clone()));
                        f
                    }
                };
                family.get_or_create(&m.labels).inc_by(m.value.max(0.0));
            }
        }
    }
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = encode(&mut text, &registry);
    text
}

/// Where the transfer loop leaves the latest page for the endpoint's thread; cheap to clone into options.
#[derive(Clone, Debug, Default)]
pub struct MetricsPage {
    text: Arc<Mutex<String>>,
}

/// Two handles are equal when they publish to the same page.
impl PartialEq for MetricsPage {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.text, &other.text)
    }
}

impl Eq for MetricsPage {}

impl MetricsPage {
    /// Replace the page with `metrics`.
    pub fn publish(&self, metrics: &[Metric]) {
        let text = render(metrics);
        if let Ok(mut page) = self.text.lock() {
            *page = text;
        }
    }

    /// The page as a scraper gets it.
    pub fn text(&self) -> String {
        self.text.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// The HTTP endpoint: a thread answering scrapes with the latest [`MetricsPage`] until dropped.
pub struct MetricsEndpoint {
    page: MetricsPage,
    server: Arc<tiny_http::Server>,
    addr: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for MetricsEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsEndpoint")
            .field("addr", &self.addr)
            .finish()
    }
}

impl MetricsEndpoint {
    /// Listen on `addr` (port 0: any free port, see [`Self::local_addr`]). The error names the address.
    pub fn serve(addr: SocketAddr) -> io::Result<Self> {
        let server = tiny_http::Server::http(addr).map_err(|e| {
            io::Error::new(io::ErrorKind::AddrInUse, format!("--metrics {addr}: {e}"))
        })?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other(format!("--metrics {addr}: not an IP address")))?;
        let server = Arc::new(server);
        let page = MetricsPage::default();
        page.publish(&[]);
        let thread = {
            let (server, page) = (server.clone(), page.clone());
            std::thread::Builder::new()
                .name("convoy-metrics".into())
                .spawn(move || answer_scrapes(&server, &page))?
        };
        Ok(MetricsEndpoint {
            page,
            server,
            addr,
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page the transfer loop publishes to.
    pub fn page(&self) -> MetricsPage {
        self.page.clone()
    }
}

impl Drop for MetricsEndpoint {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answer each request until the server is unblocked: `GET /metrics` (or `/`) with the page, anything else 404.
fn answer_scrapes(server: &tiny_http::Server, page: &MetricsPage) {
    for request in server.incoming_requests() {
        let path = request.url().split('?').next().unwrap_or("");
        let ok = *request.method() == tiny_http::Method::Get && matches!(path, "/metrics" | "/");
        let response = if ok {
            let header = tiny_http::Header::from_bytes("Content-Type", CONTENT_TYPE)
                .expect("a constant header is valid");
            tiny_http::Response::from_string(page.text()).with_header(header)
        } else {
            tiny_http::Response::from_string("not found: the metrics are at /metrics\n")
                .with_status_code(404)
        };
        // A scraper that went away is its own problem.
        let _ = request.respond(response);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn get(addr: SocketAddr, path: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(s, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn families_group_members_by_name_and_counters_end_in_total() {
        let text = render(&[
            Metric::counter("convoy_send_bytes", "File bytes sent.", 1500.0),
            Metric::gauge("convoy_receiver_rate_bits_per_second", "Rate.", 2e6)
                .with("addr", "10.0.0.2"),
            Metric::gauge("convoy_receiver_rate_bits_per_second", "Rate.", 1e6)
                .with("addr", "10.0.0.3"),
        ]);
        assert!(text.contains("# TYPE convoy_send_bytes counter"), "{text}");
        assert!(text.contains("convoy_send_bytes_total 1500"), "{text}");
        assert_eq!(
            text.matches("# TYPE convoy_receiver_rate_bits_per_second gauge")
                .count(),
            1,
            "{text}"
        );
        assert!(
            text.contains("convoy_receiver_rate_bits_per_second{addr=\"10.0.0.3\"} 1000000"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn the_endpoint_serves_the_latest_page_and_refuses_other_paths() {
        let endpoint = MetricsEndpoint::serve("127.0.0.1:0".parse().unwrap()).unwrap();
        let page = endpoint.page();
        page.publish(&[Metric::gauge("convoy_test", "A test figure.", 1.0)]);
        page.publish(&[Metric::gauge("convoy_test", "A test figure.", 2.0)]);
        let reply = get(endpoint.local_addr(), "/metrics");
        assert!(reply.starts_with("HTTP/1.0 200") || reply.starts_with("HTTP/1.1 200"));
        assert!(reply.contains(CONTENT_TYPE), "{reply}");
        assert!(reply.contains("convoy_test 2.0"), "{reply}");
        let missing = get(endpoint.local_addr(), "/other");
        assert!(missing.contains(" 404 "), "{missing}");
        drop(endpoint);
    }

    #[test]
    fn an_address_in_use_is_named_in_the_error() {
        let first = MetricsEndpoint::serve("127.0.0.1:0".parse().unwrap()).unwrap();
        let err = MetricsEndpoint::serve(first.local_addr()).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("--metrics {}", first.local_addr())),
            "{err}"
        );
    }
}
