//! CSV time series of a run. Columns are named after the scenario's flows, receivers and links (names are
//! restricted to letters, digits, `_-+`, so no quoting is needed). Times are seconds; rates bit/s.

use crate::scenario::Scenario;
use convoy_sim::observe::{CcSample, SeqMark, SeqTrace};
use convoy_sim::results::RunResult;
use convoy_sim::Network;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

fn opt(v: Option<f64>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

/// throughput.csv: `t_s` (bin start) and one column per flow, sender-side payload bit/s.
pub fn throughput_csv(r: &RunResult) -> String {
    let mut out = String::from("t_s");
    for f in &r.flows {
        out.push(',');
        out.push_str(&f.name);
    }
    out.push('\n');
    let bins = r
        .flows
        .iter()
        .map(|f| f.throughput_bps.len())
        .max()
        .unwrap_or(0);
    let interval = r.flows.first().map_or(1.0, |f| f.interval_s);
    for i in 0..bins {
        let _ = write!(out, "{}", i as f64 * interval);
        for f in &r.flows {
            let _ = write!(out, ",{}", f.throughput_bps.get(i).copied().unwrap_or(0.0));
        }
        out.push('\n');
    }
    out
}

/// receivers.csv: `t_s` and one column `<session>/<receiver>` per multicast receiver, goodput bit/s per bin.
pub fn receivers_csv(r: &RunResult) -> String {
    let cols: Vec<(String, &[f64])> = r
        .flows
        .iter()
        .flat_map(|f| {
            f.receivers.iter().map(move |x| {
                (
                    format!("{}/{}", f.name, x.name),
                    x.goodput_series_bps.as_slice(),
                )
            })
        })
        .collect();
    let mut out = String::from("t_s");
    for (name, _) in &cols {
        out.push(',');
        out.push_str(name);
    }
    out.push('\n');
    let bins = cols.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let interval = r.flows.first().map_or(1.0, |f| f.interval_s);
    for i in 0..bins {
        let _ = write!(out, "{}", i as f64 * interval);
        for (_, s) in &cols {
            let _ = write!(out, ",{}", s.get(i).copied().unwrap_or(0.0));
        }
        out.push('\n');
    }
    out
}

/// `window-<session>.csv`: the controller's samples.
pub fn window_csv(samples: &[CcSample], receivers: &[String]) -> String {
    let mut out = String::from("t_s,window_pkts,tokens_pkts,rate_bps,srtt_s,acker,acker_loss\n");
    for s in samples {
        let acker = s
            .acker
            .and_then(|i| receivers.get(i))
            .map_or("", String::as_str);
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{}",
            s.t.as_secs_f64(),
            opt(s.window),
            opt(s.tokens),
            opt(s.rate.map(|r| r * 8.0)),
            opt(s.srtt),
            acker,
            opt(s.loss)
        );
    }
    out
}

/// `seq-<session>.csv`: the time–sequence trace at the source. `seq` is the PGM sequence number (packets),
/// `bytes` = (seq − first data seq) × payload, as the pgmcc paper plots it; switches name the new acker.
pub fn sequence_csv(trace: &SeqTrace, payload: usize, receivers: &[String]) -> String {
    let mut out = String::from("t_s,kind,seq,bytes,acker\n");
    let base = first_data(trace);
    for (t, m) in &trace.marks {
        let t = t.as_secs_f64();
        let (kind, seq) = match *m {
            SeqMark::Data(s) => ("data", s),
            SeqMark::Repair(s) => ("repair", s),
            SeqMark::Ack(s) => ("ack", s),
            SeqMark::Nak(s) => ("nak", s),
            SeqMark::Switch(i) => {
                let who = receivers.get(i as usize).map_or("", String::as_str);
                let _ = writeln!(out, "{t},switch,,,{who}");
                continue;
            }
        };
        let bytes = i64::from(seq.wrapping_sub(base) as i32) * payload as i64;
        let _ = writeln!(out, "{t},{kind},{seq},{bytes},");
    }
    out
}

/// The first original data sequence number of a trace (the zero of its byte axis).
pub fn first_data(trace: &SeqTrace) -> u32 {
    trace
        .marks
        .iter()
        .find_map(|(_, m)| {
            if let SeqMark::Data(s) = m {
                Some(*s)
            } else {
                None
            }
        })
        .unwrap_or(0)
}

/// queue.csv: `t_s` and one column per observed link direction, packets waiting.
pub fn queue_csv(net: &Network) -> Option<String> {
    let cols = net.queue_samples();
    if cols.is_empty() {
        return None;
    }
    let mut out = String::from("t_s");
    for (name, _) in &cols {
        out.push(',');
        out.push_str(name);
    }
    out.push('\n');
    let n = cols.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    for i in 0..n {
        let t = cols
            .iter()
            .find_map(|(_, s)| s.get(i))
            .map_or(0.0, |(t, _)| t.as_secs_f64());
        let _ = write!(out, "{t}");
        for (_, s) in &cols {
            let _ = write!(
                out,
                ",{}",
                s.get(i).map_or(String::new(), |(_, q)| q.to_string())
            );
        }
        out.push('\n');
    }
    Some(out)
}

/// drops.csv: `t_s` (the queue samples' instants) and one column per observed link direction, its drops (queue
/// overflow, early drops and link loss) so far.
pub fn drops_csv(net: &Network) -> Option<String> {
    let queues = net.queue_samples();
    let drops = net.drop_samples();
    let times = queues.first()?.1;
    let mut out = String::from("t_s");
    for (name, _) in &drops {
        out.push(',');
        out.push_str(name);
    }
    out.push('\n');
    for (i, (t, _)) in times.iter().enumerate() {
        let _ = write!(out, "{}", t.as_secs_f64());
        for (_, d) in &drops {
            let _ = write!(out, ",{}", d.get(i).map_or(String::new(), u64::to_string));
        }
        out.push('\n');
    }
    Some(out)
}

/// Write every CSV series of the run into `dir`; returns the file names written.
pub fn write_all(
    dir: &Path,
    s: &Scenario,
    r: &RunResult,
    net: &Network,
) -> io::Result<Vec<String>> {
    let mut written = Vec::new();
    for (name, body) in all(s, r, net) {
        std::fs::write(dir.join(&name), body)?;
        written.push(name);
    }
    Ok(written)
}

/// Every series of the run, as (file name, CSV text), in the order [`write_all`] writes them.
pub fn all(s: &Scenario, r: &RunResult, net: &Network) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut put = |name: String, body: String| out.push((name, body));
    put("throughput.csv".into(), throughput_csv(r));
    if r.flows.iter().any(|f| !f.receivers.is_empty()) {
        put("receivers.csv".into(), receivers_csv(r));
    }
    for sess in &s.sessions {
        let Some(agent) = net.session_sender(&sess.name) else {
            continue;
        };
        let names: Vec<String> = sess.receivers.iter().map(|x| x.name.clone()).collect();
        if !agent.record.samples.is_empty() {
            put(
                format!("window-{}.csv", sess.name),
                window_csv(&agent.record.samples, &names),
            );
        }
        if let Some(trace) = &agent.record.trace {
            put(
                format!("seq-{}.csv", sess.name),
                sequence_csv(trace, sess.apdu_size, &names),
            );
        }
    }
    if let Some(q) = queue_csv(net) {
        put("queue.csv".into(), q);
    }
    if let Some(d) = drops_csv(net) {
        put("drops.csv".into(), d);
    }
    out
}
