//! A validated scenario becomes a simulator [`Network`].

use super::model::Scenario;
use convoy_proto::Instant;
use convoy_sim::{BuildError, LinkChange, LinkId, Network, NodeId};
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

/// Build the network of `s`. Flows are added in the order of [`Scenario::flow_names`].
pub fn build_network(s: &Scenario) -> Result<Built, BuildError> {
    let mut net = Network::new(s.seed, s.interval, s.sample);
    let mut ids = Vec::with_capacity(s.nodes.len());
    for (i, n) in s.nodes.iter().enumerate() {
        let id = net.add_node(&n.name, n.kind)?;
        // Sessions were resolved with the node indices as ids.
        if id.index() != i {
            return Err(BuildError(format!(
                "node `{}` got id {} instead of {i}",
                n.name,
                id.index()
            )));
        }
        ids.push(id);
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
        net.add_session(sess.clone())?;
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
    for c in &s.link_changes {
        let (f, b) = link_ids[c.link];
        for (link, rate_bps, delay) in
            [(f, c.rate_bps, c.delay), (b, c.rate_back_bps, c.delay_back)]
        {
            if rate_bps.is_some() || delay.is_some() {
                let change = LinkChange {
                    link,
                    rate_bps,
                    delay,
                };
                net.change_link_at(at(c.at), change);
            }
        }
    }
    Ok(Built { net, link_ids })
}
