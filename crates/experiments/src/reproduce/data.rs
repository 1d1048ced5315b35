//! What a verdict reads from one run: the results plus the series the summary does not carry.

use crate::scenario::Scenario;
use convoy_sim::observe::SeqMark;
use convoy_sim::results::RunResult;
use convoy_sim::Network;
use std::path::PathBuf;
use std::time::Duration;

/// One multicast session's sender-side series.
#[derive(Clone, Debug, Default)]
pub struct SessionData {
    /// Session name.
    pub name: String,
    /// pgmcc window samples (t, W).
    pub window: Vec<(f64, f64)>,
    /// Smoothed RTT samples (t, seconds).
    pub srtt: Vec<(f64, f64)>,
    /// Feedback timeouts.
    pub timeouts: u64,
    /// Loss reductions of the window.
    pub loss_reductions: u64,
    /// Per receiver (name, ODATA sequence numbers in arrival order), when recorded.
    pub arrivals: Vec<(String, Vec<u32>)>,
    /// The source's counters (original data and repairs sent, feedback received, ...).
    pub stats: convoy_proto::sender::SenderStats,
    /// The time–sequence trace at the source (t, mark), when the session is traced.
    pub trace: Vec<(f64, SeqMark)>,
    /// Per receiver (name, distinct ODATA packets received).
    pub odata_received: Vec<(String, u64)>,
    /// Allowed rate samples of rate controllers (t, bytes/s).
    pub rate: Vec<(f64, f64)>,
    /// The controller's milestones (t in seconds, which, value), in order (convoy-proto's `CcEvent::Milestone`).
    pub milestones: Vec<(f64, &'static str, f64)>,
    /// Per receiver (name, when its controller took its first RTT sample, seconds).
    pub rtt_measured: Vec<(String, Option<f64>)>,
}

impl SessionData {
    /// The first milestone `what` of the controller (t in seconds, value), if it came.
    pub fn first_milestone(&self, what: &str) -> Option<(f64, f64)> {
        self.milestones
            .iter()
            .find(|(_, w, _)| *w == what)
            .map(|&(t, _, v)| (t, v))
    }

    /// When the controller reached milestone `what`, seconds, in order.
    pub fn milestone_times<'a>(&'a self, what: &'a str) -> impl Iterator<Item = f64> + 'a {
        self.milestones
            .iter()
            .filter(move |(_, w, _)| *w == what)
            .map(|&(t, _, _)| t)
    }
}

/// [`RunData::link_drops`] from a finished network.
fn link_drops(net: &Network) -> Vec<(String, Vec<(f64, u64)>)> {
    let queues = net.queue_samples();
    let times: Vec<f64> = queues
        .first()
        .map(|(_, s)| s.iter().map(|(t, _)| t.as_secs_f64()).collect())
        .unwrap_or_default();
    net.drop_samples()
        .into_iter()
        .map(|(name, d)| (name, times.iter().copied().zip(d.iter().copied()).collect()))
        .collect()
}

/// One run's data, detached from the simulator (so it can cross threads): the resolved scenario it ran and
/// what was measured.
#[derive(Clone, Debug)]
pub struct RunData {
    /// The scenario as resolved for this run (overrides and seed applied): verdicts read link rates,
    /// durations, start, stop and join times from it.
    pub scenario: Scenario,
    /// Variant name within the experiment (empty when there is one run).
    pub variant: String,
    /// Seed.
    pub seed: u64,
    /// Where the run's files are.
    pub dir: PathBuf,
    /// The summary data.
    pub result: RunResult,
    /// Sessions' series.
    pub sessions: Vec<SessionData>,
    /// Events processed.
    pub events: u64,
    /// Counters of the PGM network elements: (node name, counters).
    pub ne_stats: Vec<(String, convoy_sim::ne::NeStats)>,
    /// Per observed link direction (named as in the results, `L1` or `L1:rev`), its drops so far at each queue
    /// sample: (t in seconds, drops).
    pub link_drops: Vec<(String, Vec<(f64, u64)>)>,
}

impl RunData {
    /// Extract from a finished network.
    pub fn extract(
        scenario: &Scenario,
        variant: &str,
        seed: u64,
        dir: PathBuf,
        net: &Network,
        events: u64,
    ) -> Self {
        let result = net.results();
        let mut sessions = Vec::new();
        for f in &result.flows {
            let Some(s) = net.session_sender(&f.name) else {
                continue;
            };
            let rec = &s.record;
            let window = rec
                .samples
                .iter()
                .filter_map(|x| x.window.map(|w| (x.t.as_secs_f64(), w)))
                .collect();
            let rate = rec
                .samples
                .iter()
                .filter_map(|x| x.rate.map(|r| (x.t.as_secs_f64(), r)))
                .collect();
            let srtt = rec
                .samples
                .iter()
                .filter_map(|x| x.srtt.map(|r| (x.t.as_secs_f64(), r)))
                .collect();
            let arrivals = net
                .session_receivers(&f.name)
                .iter()
                .filter_map(|r| {
                    r.record
                        .arrivals
                        .as_ref()
                        .map(|a| (r.name.to_string(), a.to_vec()))
                })
                .collect();
            let rtt_measured = net
                .session_receivers(&f.name)
                .iter()
                .map(|r| {
                    (
                        r.name.to_string(),
                        r.record.rtt_measured.map(|t| t.as_secs_f64()),
                    )
                })
                .collect();
            let odata_received = net
                .session_receivers(&f.name)
                .iter()
                .map(|r| (r.name.to_string(), r.record.odata_received))
                .collect();
            sessions.push(SessionData {
                name: f.name.clone(),
                window,
                srtt,
                timeouts: rec.timeouts,
                loss_reductions: rec.loss_reductions,
                arrivals,
                stats: s.sender().stats().clone(),
                trace: rec.trace.as_ref().map_or_else(Vec::new, |tr| {
                    tr.marks
                        .iter()
                        .map(|(t, m)| (t.as_secs_f64(), *m))
                        .collect()
                }),
                odata_received,
                rate,
                milestones: rec
                    .milestones
                    .iter()
                    .map(|&(t, what, value)| (t.as_secs_f64(), what, value))
                    .collect(),
                rtt_measured,
            });
        }
        RunData {
            scenario: scenario.clone(),
            variant: variant.to_string(),
            seed,
            dir,
            result,
            sessions,
            events,
            ne_stats: net.ne_stats(),
            link_drops: link_drops(net),
        }
    }

    /// The first instant at or after `from` by which link direction `link` had dropped more than it had at `from`
    /// (to the queue samples' resolution); `None` if it is not observed or dropped nothing more.
    pub fn first_drop_after(&self, link: &str, from: f64) -> Option<f64> {
        let (_, s) = self.link_drops.iter().find(|(n, _)| n == link)?;
        let before = s
            .iter()
            .take_while(|(t, _)| *t <= from)
            .last()
            .map_or(0, |(_, d)| *d);
        s.iter()
            .find(|(t, d)| *t > from && *d > before)
            .map(|(t, _)| *t)
    }

    /// The flow called `name`.
    pub fn flow(&self, name: &str) -> Option<&convoy_sim::results::FlowResult> {
        self.result.flows.iter().find(|f| f.name == name)
    }

    /// Mean throughput of flow `flow` over [from, to) seconds, bit/s.
    pub fn flow_mean(&self, flow: &str, from: f64, to: f64) -> Result<f64, String> {
        let f = self
            .flow(flow)
            .ok_or_else(|| format!("no flow `{flow}` in {}", self.dir.display()))?;
        Ok(super::measure::mean(
            &f.throughput_bps,
            f.interval_s,
            from,
            to,
        ))
    }

    /// The session series called `name`.
    pub fn session(&self, name: &str) -> Option<&SessionData> {
        self.sessions.iter().find(|s| s.name == name)
    }

    /// The run's length, seconds.
    pub fn end_s(&self) -> f64 {
        self.scenario.duration.as_secs_f64()
    }

    /// When flow `name` (a session, TCP or UDP flow) starts, seconds.
    pub fn start_s(&self, name: &str) -> Result<f64, String> {
        self.flow_times(name).map(|(start, _)| start)
    }

    /// When flow `name` stops, seconds (the end of the run when it runs to the end).
    pub fn stop_s(&self, name: &str) -> Result<f64, String> {
        self.flow_times(name)
            .map(|(_, stop)| stop.unwrap_or_else(|| self.end_s()))
    }

    fn flow_times(&self, name: &str) -> Result<(f64, Option<f64>), String> {
        let s = &self.scenario;
        let secs = |d: Duration| d.as_secs_f64();
        if let Some(x) = s.sessions.iter().find(|x| x.name == name) {
            return Ok((x.start.as_secs_f64(), x.stop.map(|t| t.as_secs_f64())));
        }
        if let Some(x) = s.tcp.iter().find(|x| x.name == name) {
            return Ok((secs(x.start), x.stop.map(secs)));
        }
        if let Some(x) = s.udp.iter().find(|x| x.name == name) {
            return Ok((secs(x.start), x.stop.map(secs)));
        }
        Err(format!("no flow `{name}` in scenario {}", s.name))
    }

    /// When the last receiver of session `session` joins, seconds.
    pub fn last_join_s(&self, session: &str) -> Result<f64, String> {
        self.scenario
            .sessions
            .iter()
            .find(|x| x.name == session)
            .and_then(|x| x.receivers.iter().map(|r| r.join).max())
            .map(|t| t.as_secs_f64())
            .ok_or_else(|| format!("no receivers of session `{session}`"))
    }

    /// The rate of link `name` (its forward direction), bits per second.
    pub fn link_rate_bps(&self, name: &str) -> Result<f64, String> {
        self.scenario
            .links
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.forward.rate_bps as f64)
            .ok_or_else(|| format!("no link `{name}` in scenario {}", self.scenario.name))
    }
}
