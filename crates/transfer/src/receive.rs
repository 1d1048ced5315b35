//! The receive loop of `convoy recv`: the engine's events into the [`Sink`], status reports upstream (steps 1, 3
//! and 5 of the crate's protocol), progress for the user, and when to stop.

use crate::message::TransferMode;
use crate::metrics::{Metric, MetricsPage};
use crate::refusals::RefusalLog;
use crate::sink::{FileOutcome, Output, Sink};
use crate::{exit, status, Observer, Progress, TransferError, ANNOUNCE_INTERVAL, REPORT_INTERVAL};
use convoy_net::NetReceiver;
use convoy_proto::cc::ReceiverCcEvent;
use convoy_proto::ReceiverEvent;
use convoy_wire::ReceiverStatus;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the receive behaves.
#[derive(Clone, Debug)]
pub struct RecvOptions {
    /// Where data goes.
    pub output: Output,
    /// Give up when the source has been silent this long (it sends SPMs at least every second).
    pub timeout: Duration,
    /// Give up if no source is heard at all within this time (`None`: wait forever).
    pub start_timeout: Option<Duration>,
    /// After finishing, how long at most to keep repeating the final report while waiting for the FIN.
    pub report_linger: Duration,
    /// Stop when this is set (a signal handler's flag: `convoy recv --keep` ends on SIGTERM), keeping what
    /// arrived verified, as when the source goes silent.
    pub stop: Option<Arc<AtomicBool>>,
    /// Publish the receive's figures here once a second (`--metrics`, [`crate::metrics`]).
    pub metrics: Option<MetricsPage>,
}

impl Default for RecvOptions {
    fn default() -> Self {
        RecvOptions {
            output: Output::Dir(PathBuf::from(".")),
            timeout: Duration::from_secs(10),
            start_timeout: None,
            report_linger: Duration::from_secs(10),
            stop: None,
            metrics: None,
        }
    }
}

/// What a receive achieved.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RecvReport {
    /// The transfer, once its manifest arrived.
    pub transfer_id: Option<u32>,
    /// Bytes written in this run.
    pub bytes: u64,
    /// Bytes of files found verified on disk (a complete `NAME` or blocks of `NAME.partial` from an earlier
    /// run), not received again.
    pub resumed_bytes: u64,
    /// Seconds from the first packet to the end.
    pub seconds: f64,
    /// Every entry of the manifest.
    pub files: Vec<FileOutcome>,
    /// Exit code ([`exit`]).
    pub exit_code: u8,
    /// Why it ended.
    pub end: String,
}

/// Why a receive ended when [`RecvOptions::stop`] was set before it was complete.
pub const STOPPED: &str = "stopped by a signal";

/// Receive one transfer on `rx` (the crate's protocol).
pub fn receive(
    rx: &mut NetReceiver,
    opts: &RecvOptions,
    observer: &mut dyn Observer,
) -> Result<RecvReport, TransferError> {
    let mut run = Reception::new(opts);
    let end = loop {
        let event = if run.sink.can_take() {
            rx.recv(Duration::from_millis(50))?
        } else {
            rx.drive(Duration::from_millis(5))?;
            None
        };
        if run.first_heard.is_none() && rx.silence().is_some() {
            run.first_heard = Some(Instant::now());
        }
        if let Some(end) = event.and_then(|e| run.on_event(e, observer)) {
            break end;
        }
        run.on_manifest(observer);
        run.report_status(rx)?;
        run.show_progress(rx, observer);
        if let Some(end) = run.end(rx, opts) {
            break end;
        }
    };
    run.finish(rx, end)
}

/// One receive under way: the sink and what the loop remembers between turns.
struct Reception {
    sink: Sink,
    began: Instant,
    first_heard: Option<Instant>,
    /// When the last status report went; `None` sends one at the next turn.
    last_status: Option<Instant>,
    last_progress: Instant,
    /// When every entry was complete or failed.
    done_at: Option<Instant>,
    /// The source's FIN arrived.
    fin: bool,
    is_acker: bool,
    /// The source shed this receiver ([`ReceiverEvent::Shed`]).
    shed: bool,
    had_manifest: bool,
    refusals: RefusalLog,
    metrics: Option<MetricsPage>,
    last_published: Option<Instant>,
}

impl Reception {
    fn new(opts: &RecvOptions) -> Self {
        Reception {
            sink: Sink::new(opts.output.clone()),
            began: Instant::now(),
            first_heard: None,
            last_status: None,
            last_progress: Instant::now(),
            done_at: None,
            fin: false,
            is_acker: false,
            shed: false,
            had_manifest: false,
            refusals: RefusalLog::default(),
            metrics: opts.metrics.clone(),
            last_published: None,
        }
    }

    /// Hand an engine event to the sink or the user; `Some` ends the receive with that reason.
    fn on_event(&mut self, event: ReceiverEvent, observer: &mut dyn Observer) -> Option<String> {
        match event {
            ReceiverEvent::Data(apdu) => {
                if let Err(e) = self.sink.apdu(&apdu) {
                    if self.sink.fatal().is_none() {
                        observer.message(&format!("ignored a message: {e}"));
                    }
                }
            }
            ReceiverEvent::Lost {
                first_sqn,
                last_sqn,
            } => {
                observer.message(&format!("lost sequence numbers {first_sqn}..={last_sqn}"));
                self.sink.lost();
            }
            ReceiverEvent::Finished => self.fin = true,
            ReceiverEvent::Refused { from, reason } => {
                if let Some(line) = self.refusals.note(from, reason, Instant::now()) {
                    observer.message(&line);
                }
            }
            ReceiverEvent::Cc(ReceiverCcEvent::AckerRole(a)) => self.is_acker = a,
            ReceiverEvent::Shed(leave) => {
                self.shed = true;
                return Some(format!(
                    "shed by the source: the rate this receiver was credited with, {:.2} Mbit/s, stayed below the \
                     session's minimum of {:.2} Mbit/s (convoy send --min-rate); what arrived verified is kept \
                     for convoy send --resume",
                    f64::from(leave.rate_kbps) / 1e3,
                    f64::from(leave.min_rate_kbps) / 1e3
                ));
            }
            ReceiverEvent::Cc(ReceiverCcEvent::MustLeave) => {
                // RFC 4654 §4.4: a TFMCC receiver whose path cannot carry one packet per 8 s for 120 s must leave,
                // or the whole session would crawl at its pace.
                return Some(
                    "left the session: for more than 120 s this receiver's path could not carry one packet \
                     per 8 s at the source's rate (TFMCC's leave rule, RFC 4654 §4.4)"
                        .to_string(),
                );
            }
            _ => {}
        }
        None
    }

    /// At the manifest, say at once what this receiver lacks: a resuming source waits for it.
    fn on_manifest(&mut self, observer: &mut dyn Observer) {
        if self.had_manifest || self.sink.manifest().is_none() {
            return;
        }
        self.had_manifest = true;
        self.last_status = None;
        if self.sink.resumed_bytes() > 0 {
            observer.message(&format!(
                "resuming: {} bytes already here, verified block by block",
                self.sink.resumed_bytes()
            ));
        }
    }

    /// Send a status report when one is due: JOINED before the manifest, NEEDS while blocks are missing and no
    /// data comes, COMPLETE or FAILED once done (at once, then every [`REPORT_INTERVAL`]).
    fn report_status(&mut self, rx: &mut NetReceiver) -> Result<(), TransferError> {
        let done = self.sink.is_done();
        if done && self.done_at.is_none() {
            self.done_at = Some(Instant::now());
            self.last_status = None;
        }
        let awaits_data = !done && self.sink.needs_pending();
        let interval = if done {
            REPORT_INTERVAL
        } else {
            ANNOUNCE_INTERVAL
        };
        let due = rx.silence().is_some()
            && (done || self.sink.manifest().is_none() || awaits_data)
            && self.last_status.is_none_or(|t| t.elapsed() >= interval);
        if !due {
            return Ok(());
        }
        let needs = if awaits_data { self.sink.needs() } else { None };
        let sink = &self.sink;
        let (state, detail, ranges) = match (done, sink.is_complete(), needs) {
            (false, _, Some((ranges, count))) => {
                (status::NEEDS, count.min(u64::from(u32::MAX)) as u32, ranges)
            }
            (false, _, None) => (status::JOINED, 0, Vec::new()),
            (true, true, _) => (status::COMPLETE, sink.entry_count(), Vec::new()),
            (true, false, _) => (status::FAILED, sink.incomplete_count(), Vec::new()),
        };
        let report = ReceiverStatus {
            token: self.token(),
            state,
            detail,
        };
        rx.send_status_with_needs(report, ranges)?;
        self.last_status = Some(Instant::now());
        Ok(())
    }

    /// The transfer the reports are about (0 before the manifest).
    fn token(&self) -> u32 {
        self.sink.manifest().map_or(0, |m| m.transfer_id)
    }

    /// Progress for the user, about ten times a second.
    fn show_progress(&mut self, rx: &NetReceiver, observer: &mut dyn Observer) {
        if self.last_progress.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last_progress = Instant::now();
        observer.progress(&Progress {
            bytes: self.sink.bytes() + self.sink.resumed_bytes(),
            total: self
                .sink
                .manifest()
                .filter(|m| m.mode == TransferMode::Files)
                .map(|m| m.total_bytes()),
            repairs: rx.receiver().stats().rdata,
            acker: self.is_acker.then(|| "this receiver".to_string()),
            receivers: None,
        });
        if self
            .last_published
            .is_none_or(|t| t.elapsed() >= crate::live_status::STATUS_INTERVAL)
        {
            self.publish_metrics(rx);
        }
    }

    /// The receive's figures on the metrics page, when one is served.
    fn publish_metrics(&mut self, rx: &NetReceiver) {
        let Some(page) = &self.metrics else {
            return;
        };
        self.last_published = Some(Instant::now());
        let stats = rx.receiver().stats();
        let mut m = vec![
            Metric::gauge(
                "convoy_recv_transfer_id",
                "The transfer being received (0 before its manifest).",
                self.token().into(),
            ),
            Metric::counter(
                "convoy_recv_bytes",
                "Bytes written by this transfer's receive.",
                self.sink.bytes() as f64,
            ),
            Metric::counter(
                "convoy_recv_resumed_bytes",
                "Bytes found verified on disk, not received again.",
                self.sink.resumed_bytes() as f64,
            ),
            Metric::counter(
                "convoy_recv_odata_packets",
                "Original data packets received.",
                stats.odata as f64,
            ),
            Metric::counter(
                "convoy_recv_repair_packets",
                "Repair packets (RDATA) received.",
                stats.rdata as f64,
            ),
            Metric::counter(
                "convoy_recv_naks_sent",
                "NAKs sent.",
                stats.naks_sent as f64,
            ),
            Metric::counter(
                "convoy_recv_refused",
                "Packets refused by the session's authentication.",
                stats.refused as f64,
            ),
            Metric::gauge(
                "convoy_recv_acker",
                "1 while this receiver is the one the controller follows.",
                f64::from(u8::from(self.is_acker)),
            ),
            Metric::gauge(
                "convoy_recv_complete",
                "1 once every entry arrived verified.",
                f64::from(u8::from(self.sink.is_complete())),
            ),
        ];
        if let Some(m0) = self
            .sink
            .manifest()
            .filter(|m| m.mode == TransferMode::Files)
        {
            m.push(Metric::gauge(
                "convoy_recv_total_bytes",
                "Bytes the transfer holds.",
                m0.total_bytes() as f64,
            ));
        }
        page.publish(&m);
    }

    /// Why the receive ends now, if it does: at once when told to stop; once done, at the FIN or after the
    /// linger; before, a local failure, a FIN before everything arrived, or a silent source.
    fn end(&self, rx: &NetReceiver, opts: &RecvOptions) -> Option<String> {
        if opts
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            let how = if self.sink.is_complete() {
                "complete"
            } else {
                STOPPED
            };
            return Some(how.to_string());
        }
        if let Some(t) = self.done_at {
            let over = self.fin || t.elapsed() >= opts.report_linger;
            let how = if self.sink.is_complete() {
                "complete"
            } else {
                "could not complete"
            };
            return over.then(|| how.to_string());
        }
        if let Some(f) = self.sink.fatal() {
            return Some(f.clone());
        }
        if self.fin {
            return Some("the source closed the session before everything arrived".to_string());
        }
        match rx.silence() {
            Some(s) if s >= opts.timeout => Some("the source went silent (timeout)".to_string()),
            None if opts
                .start_timeout
                .is_some_and(|t| self.began.elapsed() >= t) =>
            {
                Some("no source heard (start timeout)".to_string())
            }
            _ => None,
        }
    }

    /// The report of a receive that ended for `end`; a receiver that gives up tells the source (best effort).
    fn finish(mut self, rx: &mut NetReceiver, end: String) -> Result<RecvReport, TransferError> {
        self.publish_metrics(rx);
        let end = match self.refusals.last() {
            // Say why nothing (or not everything) came, when packets were refused.
            Some((from, reason)) if !self.sink.is_complete() => format!(
                "{end}; {} packet(s) refused, the last from {from}: {reason}",
                self.refusals.total()
            ),
            _ => end,
        };
        if !self.sink.is_done() && rx.silence().is_some() {
            rx.send_status(ReceiverStatus {
                token: self.token(),
                state: status::FAILED,
                detail: self.sink.incomplete_count(),
            })?;
        }
        let exit_code = if self.sink.is_complete() {
            exit::OK
        } else if self.sink.local_failure() {
            exit::LOCAL_IO
        } else if self.shed {
            exit::SHED
        } else {
            exit::INCOMPLETE
        };
        let files: Vec<FileOutcome> = self.sink.outcomes(&end);
        Ok(RecvReport {
            transfer_id: self.sink.manifest().map(|m| m.transfer_id),
            bytes: self.sink.bytes(),
            resumed_bytes: self.sink.resumed_bytes(),
            seconds: self.first_heard.map_or(0.0, |t| t.elapsed().as_secs_f64()),
            files,
            exit_code,
            end,
        })
    }
}
