//! A validated scenario becomes a simulator [`Network`].

use super::model::{Scenario, SessionDef};
use convoy_proto::Instant;
use convoy_sim::{BuildError, LinkId, Network, NodeId, SessionReceiver, SessionSpec};
use std::time::Duration;

/// The network and what is needed to read its results.
pub struct Built {
    /// The simulator, ready to run.
    pub net: Network,
    /// Each scenario link's (forward, backward) directions.
    pub link_ids: Vec<(LinkId, LinkId)>,
}

fn at(d: Duration) -> Instant {
    Instant::from_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// The simulator's description of session `sess`; `node` maps scenario node indices to the network's ids.
pub fn session_spec(sess: &SessionDef, node: impl Fn(usize) -> NodeId) -> SessionSpec {
    SessionSpec {
        name: sess.name.clone(),
        source: node(sess.source),
        receivers: sess
            .receivers
            .iter()
            .map(|r| SessionReceiver {
                name: r.name.clone(),
                node: node(r.node),
                join: at(r.join),
                leave: r.leave.map(at),
            })
            .collect(),
        cc: sess.cc.clone(),
        apdu_size: sess.payload,
        start: at(sess.start),
        stop: sess.stop.map(at),
        bytes: sess.bytes,
        trace: sess.trace,
        rate_max: sess.rate_max,
        nak_elim_ivl: sess.nak_elim,
        record_arrivals: sess.arrivals,
        rxw: sess.rxw.clone(),
    }
}

/// Build the network of `s`. Flows are added in the order of [`Scenario::flow_names`].
pub fn build_network(s: &Scenario) -> Result<Built, BuildError> {
    let mut net = Network::new(s.seed, s.interval, s.sample);
    let mut ids = Vec::with_capacity(s.nodes.len());
    for n in &s.nodes {
        ids.push(net.add_node(&n.name, n.kind)?);
    }
    let node = |i: usize| -> NodeId { ids[i] };
    let mut link_ids = Vec::with_capacity(s.links.len());
    for l in &s.links {
        let (f, b) = net.add_link(
            &l.name,
            node(l.a),
            node(l.b),
            l.forward.clone(),
            l.backward.clone(),
        );
        if l.observe_forward {
            net.observe_link(f);
        }
        if l.observe_back {
            net.observe_link(b);
        }
        link_ids.push((f, b));
    }
    for sess in &s.sessions {
        net.add_session(session_spec(sess, node))?;
    }
    for t in &s.tcp {
        net.add_tcp(
            &t.name,
            node(t.from),
            node(t.to),
            t.config,
            at(t.start),
            t.stop.map(at),
            t.bytes,
        );
    }
    for u in &s.udp {
        net.add_udp(
            &u.name,
            node(u.from),
            node(u.to),
            u.size,
            u.pattern.clone(),
            at(u.start),
            u.stop.map(at),
        );
    }
    Ok(Built { net, link_ids })
}
