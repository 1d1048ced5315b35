//! Flows of a scenario: multicast sessions with their receivers and controller parameters, TCP transfers, CBR
//! and on/off UDP sources.

use super::by_name::or;
use super::cc::{self, SchemeKeys};
use super::context::Ctx;
use super::locate::KeyPath;
use super::model::{Scenario, TcpDef, UdpDef};
use super::schema::{CcSpec, KeyedSpec, RxwSpec, SessionFileSpec, TcpSpec, TcpVariantSpec};
use super::semantic::{check_name, fail, fail_related, positive_rate, Res};
use super::units::{Dur, Size};
use convoy_proto::cc::CcConfig;
use convoy_proto::rxw::RxwConfig;
use convoy_proto::sender::{MinRate, DEFAULT_GRACE};
use convoy_proto::{Instant, RepairPacing};
use convoy_sim::agents::udp::UdpPattern;
use convoy_sim::tcp::{TcpConfig, TcpVariant};
use convoy_sim::NodeKind;
use convoy_sim::{NodeId, SessionReceiver, SessionSpec};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// The simulator's instant `d` after the start of the run.
pub fn at(d: Duration) -> Instant {
    Instant::from_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Resolve every flow into `s`.
pub fn resolve_flows(cx: &mut Ctx<'_>, s: &mut Scenario) -> Res<()> {
    resolve_sessions(cx, s)?;
    resolve_tcp(cx, s)?;
    resolve_cbr(cx, s)?;
    resolve_onoff(cx, s)
}

/// Every `[[session]]`, each expanded into its copies.
fn resolve_sessions(cx: &mut Ctx<'_>, s: &mut Scenario) -> Res<()> {
    let file = cx.file;
    for (i, sess) in file.session.iter().enumerate() {
        for one in expand_session(sess, i)? {
            let def = session(cx, &one, i)?;
            s.sessions.push(def);
        }
    }
    Ok(())
}

/// Every `[[tcp]]` over `[defaults] tcp`.
fn resolve_tcp(cx: &mut Ctx<'_>, s: &mut Scenario) -> Res<()> {
    let file = cx.file;
    let defaults = file.defaults.tcp.clone().unwrap_or_default();
    if file.defaults.tcp.is_some() {
        check_tcp_defaults(&defaults)?;
    }
    for (i, t) in file.tcp.iter().enumerate() {
        let p = KeyPath::root().key("tcp").index(i);
        let t = merge_tcp(t, &defaults);
        let config = tcp_config(&t, &p)?;
        let Some(name) = &t.name else {
            return fail(&p, "missing field `name`");
        };
        let Some(from) = &t.from else {
            return fail(&p, "missing field `from`");
        };
        let Some(to) = &t.to else {
            return fail(&p, "missing field `to`");
        };
        let times = Times {
            start: t.start,
            jitter: t.start_jitter,
            stop: t.stop,
        };
        for inst in expand(cx, name, from, to, t.count, times, &p)? {
            s.tcp.push(TcpDef {
                name: inst.name,
                from: inst.from,
                to: inst.to,
                config,
                start: inst.start,
                stop: inst.stop,
                bytes: t.bytes.map(|b| b.0),
            });
        }
    }
    Ok(())
}

/// `[defaults] tcp` sets values shared by the flows, never what names one.
fn check_tcp_defaults(defaults: &TcpSpec) -> Res<()> {
    let p = KeyPath::root().key("defaults").key("tcp");
    for (key, set) in [
        ("name", defaults.name.is_some()),
        ("from", defaults.from.is_some()),
        ("to", defaults.to.is_some()),
        ("count", defaults.count.is_some()),
    ] {
        if set {
            return fail(
                &p.key(key),
                format!("`{key}` is not allowed in [defaults] tcp"),
            );
        }
    }
    Ok(())
}

/// Every `[[cbr]]` source.
fn resolve_cbr(cx: &mut Ctx<'_>, s: &mut Scenario) -> Res<()> {
    let file = cx.file;
    for (i, c) in file.cbr.iter().enumerate() {
        let p = KeyPath::root().key("cbr").index(i);
        let jitter = c.jitter.unwrap_or(0.0);
        if !(0.0..1.0).contains(&jitter) {
            return fail(
                &p.key("jitter"),
                format!("jitter {jitter} must be in [0, 1)"),
            );
        }
        let pattern = UdpPattern::Cbr {
            rate_bps: positive_rate(c.rate.0, &p.key("rate"))?,
            jitter,
        };
        let size = udp_size(c.size.map(|b| b.0), &p)?;
        let times = Times {
            start: c.start,
            jitter: c.start_jitter,
            stop: c.stop,
        };
        for inst in expand(cx, &c.name, &c.from, &c.to, c.count, times, &p)? {
            s.udp.push(udp(inst, size, pattern.clone()));
        }
    }
    Ok(())
}

/// Every `[[onoff]]` source.
fn resolve_onoff(cx: &mut Ctx<'_>, s: &mut Scenario) -> Res<()> {
    let file = cx.file;
    for (i, o) in file.onoff.iter().enumerate() {
        let p = KeyPath::root().key("onoff").index(i);
        let shape = o.shape.unwrap_or(1.5);
        if !(shape > 1.0 && shape.is_finite()) {
            return fail(
                &p.key("shape"),
                format!("Pareto shape {shape} must exceed 1 (finite mean)"),
            );
        }
        for (k, d) in [("on", o.on), ("off", o.off)] {
            if d.0.is_zero() {
                return fail(&p.key(k), "mean on and off times must be above 0s");
            }
        }
        let pattern = UdpPattern::ParetoOnOff {
            rate_bps: positive_rate(o.rate.0, &p.key("rate"))?,
            mean_on: o.on.0,
            mean_off: o.off.0,
            shape,
        };
        let size = udp_size(o.size.map(|b| b.0), &p)?;
        let times = Times {
            start: o.start,
            jitter: o.start_jitter,
            stop: o.stop,
        };
        for inst in expand(cx, &o.name, &o.from, &o.to, o.count, times, &p)? {
            s.udp.push(udp(inst, size, pattern.clone()));
        }
    }
    Ok(())
}

fn udp_size(size: Option<u64>, p: &KeyPath) -> Res<u32> {
    let size = size.unwrap_or(1000);
    if !(29..=65_535).contains(&size) {
        return fail(
            &p.key("size"),
            format!("an IP packet of {size} bytes? use 29B to 64KB"),
        );
    }
    Ok(size as u32)
}

fn udp(inst: Instance, size: u32, pattern: UdpPattern) -> UdpDef {
    UdpDef {
        name: inst.name,
        from: inst.from,
        to: inst.to,
        size,
        pattern,
        start: inst.start,
        stop: inst.stop,
    }
}

/// Start and stop as written.
#[derive(Clone, Copy)]
struct Times {
    start: Option<Dur>,
    jitter: Option<Dur>,
    stop: Option<Dur>,
}

/// One flow of a (possibly counted) flow table.
struct Instance {
    name: String,
    from: usize,
    to: usize,
    start: Duration,
    stop: Option<Duration>,
}

/// Expand `count` (names `<name>1…`, `{i}` in the node names), resolve nodes, draw start jitter.
fn expand(
    cx: &mut Ctx<'_>,
    name: &str,
    from: &str,
    to: &str,
    count: Option<u32>,
    t: Times,
    p: &KeyPath,
) -> Res<Vec<Instance>> {
    let n = match count {
        Some(0) => return fail(&p.key("count"), "count must be at least 1"),
        Some(n) => n,
        None => {
            for (k, v) in [("from", from), ("to", to)] {
                if v.contains("{i}") {
                    return fail(&p.key(k), "`{i}` is replaced only in flows with a `count`");
                }
            }
            1
        }
    };
    let mut out = Vec::new();
    for i in 1..=n {
        let fill = |s: &str| s.replace("{i}", &i.to_string());
        let fname = if count.is_some() {
            format!("{name}{i}")
        } else {
            name.to_string()
        };
        cx.add_flow_name(&fname, &p.key("name"))?;
        let a = cx.node(&fill(from), &p.key("from"))?;
        let b = cx.node(&fill(to), &p.key("to"))?;
        if a == b {
            return fail(
                &p.key("to"),
                format!("flow `{fname}` goes from `{}` to itself", fill(from)),
            );
        }
        cx.check_connected(a, b, p)?;
        let mut start = t.start.map_or(Duration::ZERO, |d| d.0);
        if let Some(j) = t.jitter {
            start += j.0.mul_f64(cx.draw(&format!("start:{fname}")));
        }
        let stop = t.stop.map(|d| d.0);
        if stop.is_some_and(|s| s <= start) {
            return fail(
                &p.key("stop"),
                format!("flow `{fname}` stops before it starts"),
            );
        }
        out.push(Instance {
            name: fname,
            from: a,
            to: b,
            start,
            stop,
        });
    }
    Ok(out)
}

/// The sessions one `[[session]]` table stands for: itself, or with `count = N` N copies named `<name>1` …
/// `<name>N`, `{i}` in the node names replaced by the copy's number; only the first copy records its trace unless
/// `trace` says otherwise.
fn expand_session(s: &SessionFileSpec, i: usize) -> Res<Vec<SessionFileSpec>> {
    let p = KeyPath::root().key("session").index(i);
    let n = match s.count {
        Some(0) => return fail(&p.key("count"), "count must be at least 1"),
        Some(n) => n,
        None => {
            let nodes = s.receivers.iter().map(|r| r.node.as_str());
            let prefixes = s.receiver_range.iter().map(|r| r.prefix.as_str());
            if std::iter::once(s.source.as_str())
                .chain(nodes)
                .chain(prefixes)
                .any(|v| v.contains("{i}"))
            {
                return fail(&p, "`{i}` is replaced only in sessions with a `count`");
            }
            return Ok(vec![s.clone()]);
        }
    };
    Ok((1..=n)
        .map(|k| {
            let fill = |v: &str| v.replace("{i}", &k.to_string());
            let mut one = s.clone();
            one.name = format!("{}{k}", s.name);
            one.source = fill(&s.source);
            for r in &mut one.receivers {
                r.node = fill(&r.node);
                r.name = r.name.as_deref().map(fill);
            }
            for r in &mut one.receiver_range {
                r.prefix = fill(&r.prefix);
            }
            if k > 1 {
                one.trace = Some(s.trace.unwrap_or(false));
            }
            one
        })
        .collect())
}

/// Session table `i` (or one copy of it) resolved: its name registered, its nodes, controller, times and
/// receivers checked.
fn session(cx: &mut Ctx<'_>, s: &SessionFileSpec, i: usize) -> Res<SessionSpec> {
    let p = KeyPath::root().key("session").index(i);
    cx.add_flow_name(&s.name, &p.key("name"))?;
    let source = NodeId(cx.node(&s.source, &p.key("source"))? as u32);
    let cc = controller(s, &p)?;
    let (start, stop) = session_times(cx, s, &p)?;
    check_parity_routable(cx, s, &p)?;
    let payload = session_payload(s, &p)?;
    let receivers = session_receivers(cx, s, &p, source)?;
    check_repair_feedback(s, &cc, &p)?;
    let min_rate = min_rate(s, &cc, &p)?;
    Ok(SessionSpec {
        name: s.name.clone(),
        source,
        receivers,
        cc,
        apdu_size: payload as usize,
        start: at(start),
        stop: stop.map(at),
        bytes: s.bytes.map(|b| b.0),
        trace: s.trace.unwrap_or(i == 0),
        record_arrivals: s.arrivals.unwrap_or(false),
        rate_max: s.rate_max.map(|r| r.bytes_per_s()),
        nak_elim_ivl: s.nak_elim.map(|d| d.0),
        repair_pacing: or(&s.repairs, RepairPacing::default()),
        rxw: s.rxw.as_ref().map(rxw_config),
        keyed: s.keyed.map(|k| k == KeyedSpec::Encrypted),
        parity: s.parity.map(|p| p.0),
        min_rate,
    })
}

/// `min_rate` and `min_rate_grace` (10 s by default): only with a controller that credits receivers with rates.
fn min_rate(s: &SessionFileSpec, cc: &CcConfig, p: &KeyPath) -> Res<Option<MinRate>> {
    let Some(rate) = s.min_rate else {
        if s.min_rate_grace.is_some() {
            return fail(
                &p.key("min_rate_grace"),
                "`min_rate_grace` without `min_rate`",
            );
        }
        return Ok(None);
    };
    if !cc.controls_congestion() {
        return fail(
            &p.key("min_rate"),
            format!(
                "`{}` credits receivers with no rate to judge them by",
                cc.name()
            ),
        );
    }
    Ok(Some(MinRate {
        rate_bps: rate.bytes_per_s() as f64,
        grace: s.min_rate_grace.map_or(DEFAULT_GRACE, |d| d.0),
    }))
}

/// The session's start (with its jitter drawn) and stop, after the run's start.
fn session_times(
    cx: &Ctx<'_>,
    s: &SessionFileSpec,
    p: &KeyPath,
) -> Res<(Duration, Option<Duration>)> {
    let mut start = s.start.map_or(Duration::ZERO, |d| d.0);
    if let Some(j) = s.start_jitter {
        start += j.0.mul_f64(cx.draw(&format!("start:{}", s.name)));
    }
    let stop = s.stop.map(|d| d.0);
    if stop.is_some_and(|t| t <= start) {
        return fail(&p.key("stop"), "the session stops before it starts");
    }
    Ok((start, stop))
}

/// Parity is simulated only where no PGM network element is on the way.
fn check_parity_routable(cx: &Ctx<'_>, s: &SessionFileSpec, p: &KeyPath) -> Res<()> {
    if s.parity.is_some()
        && cx
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::PgmRouter(_)))
    {
        return fail(
            &p.key("parity"),
            "parity through PGM network elements is not simulated (RFC 3208 §11.6: their repair state per \
             transmission group): route the session over kind = \"router\" nodes",
        );
    }
    Ok(())
}

/// The session's APDU size in bytes (default 1400).
fn session_payload(s: &SessionFileSpec, p: &KeyPath) -> Res<u64> {
    let payload = s.payload.map_or(1400, |b| b.0);
    if !(1..=65_000).contains(&payload) {
        return fail(
            &p.key("payload"),
            format!("payload of {payload} bytes: use 1B to 65000B"),
        );
    }
    Ok(payload)
}

/// The session's receivers: those listed, then those of each range, in order; at least one.
fn session_receivers(
    cx: &Ctx<'_>,
    s: &SessionFileSpec,
    p: &KeyPath,
    source: NodeId,
) -> Res<Vec<SessionReceiver>> {
    let mut placed = PlacedReceivers::new(source, &s.source, p.key("source"));
    for (k, r) in s.receivers.iter().enumerate() {
        let rp = p.key("receivers").index(k);
        let node = NodeId(cx.node(&r.node, &rp.key("node"))? as u32);
        let name = r.name.clone().unwrap_or_else(|| r.node.clone());
        check_name(&name, &rp.key("name"))?;
        let def = SessionReceiver {
            name,
            node,
            join: at(r.join.map_or(Duration::ZERO, |d| d.0)),
            leave: r.leave.map(|d| at(d.0)),
        };
        placed.place(cx, def, &rp, rp.key("node"))?;
    }
    for (k, r) in s.receiver_range.iter().enumerate() {
        let rp = p.key("receiver_range").index(k);
        if r.first > r.last {
            return fail(
                &rp.key("last"),
                format!("empty range {}..={}", r.first, r.last),
            );
        }
        for n in r.first..=r.last {
            let host = format!("{}{n}", r.prefix);
            let node = NodeId(cx.node(&host, &rp.key("prefix"))? as u32);
            let def = SessionReceiver {
                name: host,
                node,
                join: at(r.join.map_or(Duration::ZERO, |d| d.0)),
                leave: r.leave.map(|d| at(d.0)),
            };
            placed.place(cx, def, &rp, rp.key("prefix"))?;
        }
    }
    let receivers = placed.into_receivers();
    if receivers.is_empty() {
        return fail(
            p,
            format!(
                "session `{}` has no receivers (`receivers` or `receiver_range`)",
                s.name
            ),
        );
    }
    Ok(receivers)
}

/// Receivers placed so far, with the key of their node (for errors that involve two of them), and indexes by
/// node and by name (a fan-out session has thousands of receivers).
struct PlacedReceivers<'s> {
    /// The session's source node.
    source: NodeId,
    /// Its name as written.
    source_name: &'s str,
    /// Where it is written.
    source_key: KeyPath,
    /// The receivers, each with the key of its node.
    receivers: Vec<(SessionReceiver, KeyPath)>,
    /// Node → index into `receivers`.
    by_node: BTreeMap<NodeId, usize>,
    /// Receiver names in use.
    names: BTreeSet<String>,
}

impl<'s> PlacedReceivers<'s> {
    /// No receiver yet, for a session from `source` (named `source_name`, written at `source_key`).
    fn new(source: NodeId, source_name: &'s str, source_key: KeyPath) -> Self {
        PlacedReceivers {
            source,
            source_name,
            source_key,
            receivers: Vec::new(),
            by_node: BTreeMap::new(),
            names: BTreeSet::new(),
        }
    }

    /// Add receiver `r` (written at `rp`, its node at `node_key`): on a node of its own, not the source's, with
    /// a name of its own, joining before it leaves and connected to the source.
    fn place(
        &mut self,
        cx: &Ctx<'_>,
        r: SessionReceiver,
        rp: &KeyPath,
        node_key: KeyPath,
    ) -> Res<()> {
        if r.node == self.source {
            let msg = format!(
                "receiver `{}` is on the source's node `{}`",
                r.name, self.source_name
            );
            return fail_related(&node_key, std::slice::from_ref(&self.source_key), msg);
        }
        if let Some((o, okey)) = self.by_node.get(&r.node).map(|&i| &self.receivers[i]) {
            let msg = format!(
                "receivers `{}` and `{}` are both on node `{}`; a receiver is identified by its host's \
                 address, so give each its own host",
                o.name,
                r.name,
                cx.nodes[r.node.index()].name
            );
            return fail_related(&node_key, std::slice::from_ref(okey), msg);
        }
        if self.names.contains(&r.name) {
            return fail(
                rp,
                format!("receiver name `{}` is used twice in this session", r.name),
            );
        }
        if r.leave.is_some_and(|l| l <= r.join) {
            let msg = format!("receiver `{}` leaves before it joins", r.name);
            return fail_related(&rp.key("leave"), &[rp.key("join")], msg);
        }
        cx.check_connected(self.source.index(), r.node.index(), rp)?;
        self.by_node.insert(r.node, self.receivers.len());
        self.names.insert(r.name.clone());
        self.receivers.push((r, node_key));
        Ok(())
    }

    /// The receivers in the order placed.
    fn into_receivers(self) -> Vec<SessionReceiver> {
        self.receivers.into_iter().map(|(r, _)| r).collect()
    }
}

/// A controller whose feedback rides on the receivers' NAKs needs them to ask for repairs.
fn check_repair_feedback(s: &SessionFileSpec, cc: &CcConfig, p: &KeyPath) -> Res<()> {
    if s.rxw.as_ref().and_then(|r| r.repair) == Some(false) && cc.feedback_rides_on_naks() {
        return fail(
            &p.key("rxw").key("repair"),
            format!(
                "`{}` needs the receivers' NAKs for its feedback; it cannot run with `repair = false`",
                cc.name()
            ),
        );
    }
    Ok(())
}

/// The receive window's parameters: `rxw = { ... }` over the engine's defaults.
fn rxw_config(r: &RxwSpec) -> RxwConfig {
    let d = RxwConfig::default();
    RxwConfig {
        nak_bo_ivl: r.nak_bo_ivl.map_or(d.nak_bo_ivl, |x| x.0),
        nak_rpt_ivl: r.nak_rpt_ivl.map_or(d.nak_rpt_ivl, |x| x.0),
        nak_rdata_ivl: r.nak_rdata_ivl.map_or(d.nak_rdata_ivl, |x| x.0),
        nak_ncf_retries: r.nak_ncf_retries.unwrap_or(d.nak_ncf_retries),
        nak_data_retries: r.nak_data_retries.unwrap_or(d.nak_data_retries),
        max_packets: r.max_packets.unwrap_or(d.max_packets),
        max_apdu_len: d.max_apdu_len,
        nak_packets_per_s: r.nak_rate.unwrap_or(d.nak_packets_per_s),
        nak_burst: r.nak_burst.unwrap_or(d.nak_burst),
        max_awaited: r.max_awaited.unwrap_or(d.max_awaited),
        max_buffered_bytes: r.max_buffered.map_or(d.max_buffered_bytes, |b| b.0),
        request_repairs: r.repair.unwrap_or(d.request_repairs),
    }
}

/// A flow's own TCP values over `[defaults] tcp`.
fn merge_tcp(t: &TcpSpec, d: &TcpSpec) -> TcpSpec {
    TcpSpec {
        name: t.name.clone(),
        from: t.from.clone(),
        to: t.to.clone(),
        count: t.count,
        variant: t.variant.or(d.variant),
        start: t.start.or(d.start),
        start_jitter: t.start_jitter.or(d.start_jitter),
        stop: t.stop.or(d.stop),
        bytes: t.bytes.or(d.bytes),
        mss: t.mss.or(d.mss),
        initial_window: t.initial_window.or(d.initial_window),
        initial_ssthresh: t.initial_ssthresh.or(d.initial_ssthresh),
        min_rto: t.min_rto.or(d.min_rto),
        initial_rto: t.initial_rto.or(d.initial_rto),
        max_rto: t.max_rto.or(d.max_rto),
        clock_granularity: t.clock_granularity.or(d.clock_granularity),
        delayed_ack: t.delayed_ack.or(d.delayed_ack),
        delayed_ack_timeout: t.delayed_ack_timeout.or(d.delayed_ack_timeout),
        dupack: t.dupack.or(d.dupack),
        max_cwnd: t.max_cwnd.or(d.max_cwnd),
    }
}

fn tcp_config(t: &TcpSpec, p: &KeyPath) -> Res<TcpConfig> {
    let d = TcpConfig::default();
    let mss = t.mss.map_or(u64::from(d.mss), |m| m.0);
    if !(1..=65_000).contains(&mss) {
        return fail(
            &p.key("mss"),
            format!("an MSS of {mss} bytes? use 1 to 65000"),
        );
    }
    let bytes_of = |s: Size| match s {
        Size::Packets(n) => n.saturating_mul(mss),
        Size::Bytes(b) => b,
    };
    let iw = t.initial_window.unwrap_or(d.initial_window);
    if iw == 0 {
        return fail(
            &p.key("initial_window"),
            "the initial window must be at least 1 segment",
        );
    }
    if t.dupack == Some(0) {
        return fail(&p.key("dupack"), "the dupack threshold must be at least 1");
    }
    let min_rto = t.min_rto.map_or(d.min_rto, |x| x.0);
    let max_rto = t.max_rto.map_or(d.max_rto, |x| x.0);
    if min_rto > max_rto {
        return fail(&p.key("min_rto"), "min_rto exceeds max_rto");
    }
    let clock_granularity = t.clock_granularity.map_or(d.clock_granularity, |x| x.0);
    if clock_granularity.is_zero() || clock_granularity > Duration::from_secs(1) {
        return fail(
            &p.key("clock_granularity"),
            format!("a clock granularity of {clock_granularity:?}? use 1 µs to 1 s"),
        );
    }
    Ok(TcpConfig {
        variant: match t.variant {
            None => d.variant,
            Some(TcpVariantSpec::Reno) => TcpVariant::Reno,
            Some(TcpVariantSpec::Newreno) => TcpVariant::NewReno,
            Some(TcpVariantSpec::Sack) => TcpVariant::Sack,
        },
        mss: mss as u32,
        initial_window: iw,
        initial_ssthresh: t.initial_ssthresh.map_or(d.initial_ssthresh, bytes_of),
        min_rto,
        initial_rto: t.initial_rto.map_or(d.initial_rto, |x| x.0),
        max_rto,
        clock_granularity,
        delayed_ack: t.delayed_ack.unwrap_or(d.delayed_ack),
        delayed_ack_timeout: t.delayed_ack_timeout.map_or(d.delayed_ack_timeout, |x| x.0),
        dupack_threshold: t.dupack.unwrap_or(d.dupack_threshold),
        max_cwnd: t.max_cwnd.map(bytes_of),
    })
}

/// Generates [`controller`] from the registered schemes ([`super::cc`]).
macro_rules! controller_fn {
    ($($field:ident: $variant:ident($module:ident::$spec:ident)),* $(,)?) => {
        /// The session's controller: the scheme `cc` names (the engine's default scheme when absent), configured
        /// by its table; a table of another scheme is an error.
        fn controller(s: &SessionFileSpec, p: &KeyPath) -> Res<CcConfig> {
            let chosen = s.cc.map_or(CcConfig::default().name(), CcSpec::name);
            $(
                if s.$field.is_some() && chosen != stringify!($field) {
                    return fail(
                        &p.key(stringify!($field)),
                        format!("`{}` parameters given but cc = \"{chosen}\"", stringify!($field)),
                    );
                }
            )*
            $(
                if chosen == stringify!($field) {
                    return <cc::$module::$spec as SchemeKeys>::resolve(
                        s.$field.as_ref(),
                        &p.key(stringify!($field)),
                        p,
                    );
                }
            )*
            fail(&p.key("cc"), format!("no scheme `{chosen}`"))
        }
    };
}

cc::for_each_scheme!(controller_fn);
