//! What a send is doing while it runs: the receiver that limits the session, named on the progress line, and
//! `convoy send --status-file FILE`, a JSON status rewritten once a second (written beside FILE and renamed over
//! it, so a reader never sees half a file).
//!
//! The figures of each receiver are those of its last report to the controller ([`CcEvent::Report`]): the rate
//! the controller credits it with (pgmcc's throughput equation, TFMCC's reported rate, aimd's capacity), its loss
//! and RTT. The limiting receiver is the one the controller follows (pgmcc's acker, TFMCC's CLR, aimd's agent).

use crate::metrics::{Metric, MetricsPage};
use convoy_proto::cc::{CcEvent, CcSnapshot};
use convoy_proto::sender::Shed;
use std::collections::BTreeMap;
use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the status file is rewritten.
pub const STATUS_INTERVAL: Duration = Duration::from_secs(1);

/// A receiver's figures as last reported to the controller.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Heard {
    /// The rate the controller credits it with, bit/s.
    pub rate_bps: Option<f64>,
    /// Its loss rate in [0, 1].
    pub loss: Option<f64>,
    /// Its round-trip time, seconds.
    pub rtt_s: Option<f64>,
}

impl Heard {
    /// "10.0.0.2 at 4.1 Mbit/s, loss 1.2%, RTT 23 ms", the figures it has.
    pub fn describe(&self, addr: IpAddr) -> String {
        let mut s = addr.to_string();
        if let Some(r) = self.rate_bps {
            s.push_str(&format!(" at {:.1} Mbit/s", r / 1e6));
        }
        if let Some(l) = self.loss {
            s.push_str(&format!(", loss {:.1}%", l * 100.0));
        }
        if let Some(r) = self.rtt_s {
            s.push_str(&format!(", RTT {:.0} ms", r * 1e3));
        }
        s
    }
}

/// The receivers' last reported figures, and the status file when one is asked for.
#[derive(Debug)]
pub struct LiveStatus {
    heard: BTreeMap<IpAddr, Heard>,
    shed: BTreeMap<IpAddr, ShedLine>,
    file: Option<PathBuf>,
    metrics: Option<MetricsPage>,
    started: Instant,
    written: Option<Instant>,
}

/// What the status file says besides the receivers' figures: the send's progress and the controller's state.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SendProgress {
    /// The transfer's identity.
    pub transfer_id: u32,
    /// File (or stream) bytes sent once so far.
    pub bytes: u64,
    /// Total bytes, when known.
    pub total: Option<u64>,
    /// Repairs sent (RDATA and parity).
    pub repairs: u64,
    /// Packets refused by the session's authentication.
    pub refused: u64,
}

/// One receiver in the status file.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReceiverLine {
    /// Its address.
    pub addr: IpAddr,
    /// "joined", "complete", "failed" or "incomplete", from its status reports; "reporting" for one heard by the
    /// controller only.
    pub state: &'static str,
    /// The figures it last reported to the controller.
    #[serde(flatten)]
    pub heard: Heard,
    /// Why it was shed, if it was (`convoy send --min-rate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shed: Option<ShedLine>,
}

/// A shed receiver in the status file.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ShedLine {
    /// The rate it was credited with when shed, bit/s.
    pub rate_bps: f64,
    /// The session's minimum, bit/s.
    pub min_rate_bps: f64,
    /// How long its reports had been below the minimum, seconds.
    pub below_s: f64,
}

impl From<Shed> for ShedLine {
    fn from(s: Shed) -> Self {
        ShedLine {
            rate_bps: s.rate_bps * 8.0,
            min_rate_bps: s.min_rate_bps * 8.0,
            below_s: s.below_for.as_secs_f64(),
        }
    }
}

impl LiveStatus {
    /// Figures kept for the progress line, the status file at `file` and the metrics `page` when given.
    pub fn new(file: Option<PathBuf>, metrics: Option<MetricsPage>) -> Self {
        LiveStatus {
            heard: BTreeMap::new(),
            shed: BTreeMap::new(),
            file,
            metrics,
            started: Instant::now(),
            written: None,
        }
    }

    /// Keep the figures of a controller's report; other events are not this module's.
    pub fn on_event(&mut self, event: &CcEvent) {
        if let CcEvent::Report {
            receiver,
            loss,
            rtt_s,
            rate_bps,
        } = *event
        {
            let h = self.heard.entry(receiver).or_default();
            h.loss = loss.or(h.loss);
            h.rtt_s = rtt_s.or(h.rtt_s);
            h.rate_bps = rate_bps.map(|r| r * 8.0);
        }
    }

    /// Keep why a receiver was shed, for its line.
    pub fn on_shed(&mut self, shed: Shed) {
        self.shed.insert(shed.receiver, shed.into());
    }

    /// The receiver the controller follows, with what it last reported.
    pub fn limiting(&self, snapshot: &CcSnapshot) -> Option<(IpAddr, Heard)> {
        let addr = snapshot.acker?;
        Some((addr, self.heard.get(&addr).copied().unwrap_or_default()))
    }

    /// Rewrite the status file and the metrics page, where asked for, if [`STATUS_INTERVAL`] has passed (or
    /// `now_anyway`, at the end). `receivers` are the receivers' states from their status reports.
    pub fn write_if_due(
        &mut self,
        progress: &SendProgress,
        snapshot: &CcSnapshot,
        receivers: &[(IpAddr, &'static str)],
        now_anyway: bool,
    ) -> io::Result<()> {
        if self.file.is_none() && self.metrics.is_none() {
            return Ok(());
        }
        if !now_anyway && self.written.is_some_and(|t| t.elapsed() < STATUS_INTERVAL) {
            return Ok(());
        }
        self.written = Some(Instant::now());
        let status = self.status(progress, snapshot, receivers);
        if let Some(page) = &self.metrics {
            page.publish(&status.metrics());
        }
        match &self.file {
            Some(file) => {
                let json = serde_json::to_string_pretty(&status).unwrap_or_default() + "\n";
                write_atomically(file, &json)
            }
            None => Ok(()),
        }
    }

    fn status(
        &self,
        progress: &SendProgress,
        snapshot: &CcSnapshot,
        receivers: &[(IpAddr, &'static str)],
    ) -> SendStatus {
        let mut lines: Vec<ReceiverLine> = receivers
            .iter()
            .map(|&(addr, state)| ReceiverLine {
                addr,
                state,
                heard: self.heard.get(&addr).copied().unwrap_or_default(),
                shed: self.shed.get(&addr).copied(),
            })
            .collect();
        for (addr, heard) in &self.heard {
            if !receivers.iter().any(|(a, _)| a == addr) {
                lines.push(ReceiverLine {
                    addr: *addr,
                    state: "reporting",
                    heard: *heard,
                    shed: None,
                });
            }
        }
        let limiting = self.limiting(snapshot).map(|(addr, heard)| ReceiverLine {
            addr,
            state: "limiting",
            heard,
            shed: None,
        });
        SendStatus {
            seconds: self.started.elapsed().as_secs_f64(),
            progress: progress.clone(),
            rate_bps: snapshot.rate_bps.map(|r| r * 8.0),
            window: snapshot.window,
            srtt_s: snapshot.srtt_s,
            limiting,
            receivers: lines,
        }
    }
}

/// What the status file holds, and what the metrics page shows.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SendStatus {
    /// Seconds since the send began.
    pub seconds: f64,
    /// Bytes, total, repairs, refusals.
    #[serde(flatten)]
    pub progress: SendProgress,
    /// The controller's rate, bit/s (rate-based schemes).
    pub rate_bps: Option<f64>,
    /// pgmcc's window, packets.
    pub window: Option<f64>,
    /// The smoothed RTT the controller keeps, seconds.
    pub srtt_s: Option<f64>,
    /// The receiver the controller follows.
    pub limiting: Option<ReceiverLine>,
    /// Every receiver heard from.
    pub receivers: Vec<ReceiverLine>,
}

impl SendStatus {
    /// The same figures as Prometheus metrics ([`crate::metrics`]).
    pub fn metrics(&self) -> Vec<Metric> {
        let p = &self.progress;
        let mut m = vec![
            Metric::gauge(
                "convoy_send_transfer_id",
                "The transfer being sent.",
                p.transfer_id.into(),
            ),
            Metric::counter(
                "convoy_send_bytes",
                "File or stream bytes sent once.",
                p.bytes as f64,
            ),
            Metric::counter(
                "convoy_send_repairs",
                "Repairs sent (RDATA and parity).",
                p.repairs as f64,
            ),
            Metric::counter(
                "convoy_send_refused",
                "Packets refused by the session's authentication.",
                p.refused as f64,
            ),
        ];
        let optional = [
            (
                "convoy_send_total_bytes",
                "Bytes the transfer holds, when known.",
                p.total.map(|t| t as f64),
            ),
            (
                "convoy_send_rate_bits_per_second",
                "The controller's rate (rate-based schemes).",
                self.rate_bps,
            ),
            ("convoy_send_window_packets", "pgmcc's window.", self.window),
            (
                "convoy_send_srtt_seconds",
                "The controller's smoothed RTT.",
                self.srtt_s,
            ),
        ];
        m.extend(
            optional
                .into_iter()
                .filter_map(|(name, help, v)| Some(Metric::gauge(name, help, v?))),
        );
        if let Some(l) = &self.limiting {
            m.push(
                Metric::gauge(
                    "convoy_send_limiting_receiver",
                    "1 for the receiver the controller follows.",
                    1.0,
                )
                .with("addr", l.addr),
            );
        }
        for r in &self.receivers {
            m.push(
                Metric::gauge("convoy_receiver_state", "1 for each receiver's state.", 1.0)
                    .with("addr", r.addr)
                    .with("state", r.state),
            );
            let h = &r.heard;
            let figures = [
                (
                    "convoy_receiver_rate_bits_per_second",
                    "The rate the controller credits the receiver with.",
                    h.rate_bps,
                ),
                (
                    "convoy_receiver_loss_ratio",
                    "The receiver's loss rate as last reported.",
                    h.loss,
                ),
                (
                    "convoy_receiver_rtt_seconds",
                    "The receiver's RTT as last reported.",
                    h.rtt_s,
                ),
            ];
            for (name, help, v) in figures {
                if let Some(v) = v {
                    m.push(Metric::gauge(name, help, v).with("addr", r.addr));
                }
            }
        }
        m
    }
}

/// Write `text` to a temporary file beside `file` and rename it over `file`: a reader sees the old status or the
/// new one, never part of one. Errors name the file.
fn write_atomically(file: &Path, text: &str) -> io::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", file.display()));
    std::fs::write(&tmp, text).map_err(named)?;
    std::fs::rename(&tmp, file).map_err(named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(n: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, n))
    }

    fn report(n: u8, rate_bytes: Option<f64>, loss: Option<f64>) -> CcEvent {
        CcEvent::Report {
            receiver: ip(n),
            loss,
            rtt_s: Some(0.02),
            rate_bps: rate_bytes,
        }
    }

    #[test]
    fn the_limiting_receiver_is_the_one_the_controller_follows_with_its_last_figures() {
        let mut live = LiveStatus::new(None, None);
        live.on_event(&report(2, Some(500_000.0), Some(0.01)));
        live.on_event(&report(3, Some(100_000.0), Some(0.05)));
        live.on_event(&report(3, Some(125_000.0), None));
        let snap = CcSnapshot {
            acker: Some(ip(3)),
            ..CcSnapshot::default()
        };
        let (addr, heard) = live.limiting(&snap).unwrap();
        assert_eq!(addr, ip(3));
        assert_eq!(
            heard.rate_bps,
            Some(1_000_000.0),
            "bit/s, the last report's"
        );
        assert_eq!(
            heard.loss,
            Some(0.05),
            "a report without a loss keeps the last one"
        );
        assert_eq!(
            heard.describe(addr),
            "10.0.0.3 at 1.0 Mbit/s, loss 5.0%, RTT 20 ms"
        );
        assert_eq!(live.limiting(&CcSnapshot::default()), None);
    }

    #[test]
    fn the_status_file_is_replaced_whole_at_most_once_a_second() {
        let dir = std::env::temp_dir().join(format!("convoy-live-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("status.json");
        let mut live = LiveStatus::new(Some(file.clone()), None);
        live.on_event(&report(2, Some(250_000.0), Some(0.0)));
        let progress = SendProgress {
            transfer_id: 7,
            bytes: 1000,
            total: Some(4000),
            repairs: 1,
            refused: 0,
        };
        let snap = CcSnapshot {
            acker: Some(ip(2)),
            ..CcSnapshot::default()
        };
        live.write_if_due(
            &progress,
            &snap,
            &[(ip(2), "joined"), (ip(4), "joined")],
            false,
        )
        .unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(v["bytes"], 1000);
        assert_eq!(v["limiting"]["addr"], "10.0.0.2");
        assert_eq!(v["limiting"]["rate_bps"], 2_000_000.0);
        assert_eq!(v["receivers"].as_array().unwrap().len(), 2);
        let later = SendProgress {
            bytes: 2000,
            ..progress
        };
        live.write_if_due(&later, &snap, &[], false).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(v["bytes"], 1000, "not rewritten within the second");
        live.write_if_due(&later, &snap, &[], true).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(v["bytes"], 2000, "rewritten at the end");
        assert!(!dir.join("status.json.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
