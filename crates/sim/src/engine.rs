//! The event loop: packet arrivals, forwarding (unicast routes, multicast trees, PGM network elements), agent
//! timers, starts and stops, sampling.

use crate::agents::{Agent, Handled};
use crate::event::EventQueue;
use crate::ids::{AgentId, GroupId, LinkId, NodeId};
use crate::link::{Link, Offer};
use crate::ne::{rdata_key, NakPacket};
use crate::network::{Action, LinkCapture, Network};
use crate::packet::{Body, Dest, Packet, PgmDatagram, UDP_IP_OVERHEAD};
use crate::topology::address_group;
use convoy_proto::Instant;
use std::rc::Rc;

impl Network {
    /// Current simulated time.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Run until `until` (events at exactly `until` included). Returns the number of events processed.
    pub fn run(&mut self, until: Instant) -> u64 {
        if !self.started {
            self.started = true;
            self.release_build_slack();
            if !self.sample_interval.is_zero() {
                self.queue.push(Instant::ZERO, Action::Sample);
            }
        }
        let mut events = 0u64;
        while let Some(t) = self.queue.peek_time() {
            if t > until {
                break;
            }
            let Some((at, action)) = self.queue.pop() else {
                break;
            };
            self.now = at;
            events += 1;
            #[cfg(test)]
            if !matches!(action, Action::Arrive(_) | Action::ArriveAll(_)) {
                self.event_trace.push((at, action));
            }
            match action {
                Action::Arrive(link) => self.arrive(link),
                Action::ArriveAll(stretch) => {
                    let links = self.fan_out.take(stretch);
                    // Counted as the events they stand for.
                    events += links.len() as u64 - 1;
                    self.arrive_all(&links);
                    self.fan_out.done(stretch, links);
                }
                Action::Timer(agent, generation) => {
                    let timer = &mut self.timers[agent.index()];
                    let event = |g| Action::Timer(agent, g);
                    if timer.on_event(generation, at, &mut self.queue, event) {
                        self.agents[agent.index()].on_timer(at, &mut self.outbox);
                        self.after_agent(agent);
                    }
                }
                Action::Start(agent) => self.start_agent(agent),
                Action::Stop(agent) => self.stop_agent(agent),
                Action::Sample => {
                    self.sample();
                    self.queue.push(at + self.sample_interval, Action::Sample);
                }
                Action::ChangeLink(k) => {
                    let c = self.link_changes[k as usize];
                    self.links[c.link.index()].set_rate_and_delay(c.rate_bps, c.delay);
                }
            }
        }
        self.now = self.now.max(until);
        events
    }

    fn start_agent(&mut self, agent: AgentId) {
        if let Agent::PgmReceiver(r) = &self.agents[agent.index()] {
            let group = &mut self.groups[r.group.index()];
            group.tree.join(&self.graph, r.node);
            group.add_member(r.node, agent);
        }
        self.agents[agent.index()].start(self.now, &mut self.outbox);
        self.after_agent(agent);
    }

    fn stop_agent(&mut self, agent: AgentId) {
        self.agents[agent.index()].stop(self.now, &mut self.outbox);
        if let Agent::PgmReceiver(r) = &self.agents[agent.index()] {
            let group = &mut self.groups[r.group.index()];
            group.remove_member(r.node, agent);
            group.tree.leave(&self.graph, r.node);
        }
        self.after_agent(agent);
    }

    /// Send what an agent left in the network's outbox and re-arm its timer. Agents' calls made while these
    /// packets are sent find the outbox's packet list empty.
    // Inlined in the delivery path: most deliveries to a receiver send nothing and leave its timer as it was.
    #[inline(always)]
    fn after_agent(&mut self, agent: AgentId) {
        if !self.outbox.packets.is_empty() {
            self.send_outbox(agent);
        }
        let a = &mut self.agents[agent.index()];
        if let Agent::PgmReceiver(r) = a {
            if r.take_leave_request() {
                schedule_stop(&mut self.queue, self.now, agent);
            }
        }
        let next = a.next_timer();
        let event = |g| Action::Timer(agent, g);
        self.timers[agent.index()].arm(next, self.now, &mut self.queue, event);
    }

    /// Send the packets `agent` left in the outbox from its node.
    #[inline(never)]
    fn send_outbox(&mut self, agent: AgentId) {
        let mut packets = std::mem::take(&mut self.outbox.packets);
        let node = self.agents[agent.index()].node();
        for p in packets.drain(..) {
            let p = self.packet_pool.wrap(p);
            self.at_node(node, p, None);
        }
        // Keep the allocation for the next call.
        if self.outbox.packets.capacity() < packets.capacity() {
            self.outbox.packets = packets;
        }
    }

    /// The link's earliest packet reaches its far end; the link's one arrival event moves to the next.
    // Inlined in the run loop: a link's own arrival is most of a unicast run's events (a stretch's arrivals
    // go through `arrive_all`).
    #[inline(always)]
    fn arrive(&mut self, link: LinkId) {
        let now = self.now;
        #[cfg(test)]
        self.event_trace.push((now, Action::Arrive(link)));
        let l = &mut self.links[link.index()];
        let Some(packet) = l.take_arrival(now) else {
            return;
        };
        let node = l.to;
        if let Some(t) = l.next_arrival() {
            self.queue.push(t, Action::Arrive(link));
        }
        self.at_node(node, packet, Some(link));
    }

    /// The arrivals of a stretch (out-links of one node, in the order offered, each due now), with the results
    /// of [`Network::arrive`] on each link in turn, in two passes: every link's packet is taken first, while
    /// the links are still in cache from the fan-out that filled them, then each link's next arrival is
    /// scheduled and its packet handled at the far node, link after link, as `arrive` does. Taking a packet
    /// earlier changes nothing the handling of another could see: handling a packet at a node acts on that node
    /// and its out-links only (other nodes hear of it through later arrivals), and the stretch's links leave
    /// another node, the one that fanned out (a tree has no link from a node to itself).
    fn arrive_all(&mut self, links: &[LinkId]) {
        let now = self.now;
        let mut taken = std::mem::take(&mut self.stretch_arrivals);
        for &link in links {
            #[cfg(test)]
            self.event_trace.push((now, Action::Arrive(link)));
            let l = &mut self.links[link.index()];
            if let Some(packet) = l.take_arrival(now) {
                taken.push((link, l.to, packet, l.next_arrival()));
            }
        }
        for (link, node, packet, next) in taken.drain(..) {
            if let Some(t) = next {
                self.queue.push(t, Action::Arrive(link));
            }
            self.at_node(node, packet, Some(link));
        }
        self.stretch_arrivals = taken;
    }

    fn offer(&mut self, link: LinkId, packet: Rc<Packet>) {
        if let Some(t) = self.admit(link, packet) {
            self.queue.push(t, Action::Arrive(link));
        }
    }

    /// Offers `packet` to `link`; returns when the link's arrival event is due if it needs one now (it was
    /// idle and took the packet: a link with packets in its pipe already has its event, for the earliest).
    fn admit(&mut self, link: LinkId, packet: Rc<Packet>) -> Option<Instant> {
        admit_to(&mut self.links, &mut self.capture, self.now, link, packet)
    }

    /// Hands `packet` to `agent`, then sends what it sent and re-arms its timer, unless the agent says there is
    /// nothing to do ([`Handled::Settled`]: most packets of a session at most of its receivers).
    // Inlined where packets reach agents: a fan-out calls it once per receiver.
    #[inline(always)]
    fn deliver(&mut self, agent: AgentId, packet: Rc<Packet>) {
        let handled = self.agents[agent.index()].on_packet(self.now, &packet, &mut self.outbox);
        self.packet_pool.recycle(packet);
        if handled == Handled::FollowUp {
            self.after_agent(agent);
        }
    }

    /// A packet is at `node` (sent by a local agent when `arrived_on` is `None`).
    fn at_node(&mut self, node: NodeId, packet: Rc<Packet>, arrived_on: Option<LinkId>) {
        match packet.dst {
            Dest::Node(dst) if dst == node => {
                if let Some(agent) = packet.to_agent {
                    if self.agents[agent.index()].node() == node {
                        self.deliver(agent, packet);
                    }
                }
            }
            Dest::Node(dst) => {
                if let (Some(in_link), true) = (arrived_on, self.nodes[node.index()].ne.is_some()) {
                    if !self.network_element_upstream(node, &packet, in_link) {
                        return;
                    }
                }
                match self.routes.next(&self.graph, node, dst) {
                    Some(l) => self.offer(l, packet),
                    None => self.unroutable += 1,
                }
            }
            Dest::Group(g) => self.multicast(node, g, packet, arrived_on),
        }
    }

    fn multicast(
        &mut self,
        node: NodeId,
        g: GroupId,
        packet: Rc<Packet>,
        arrived_on: Option<LinkId>,
    ) {
        // Membership and the tree change only at Start and Stop events, never while a packet is forwarded or
        // delivered here, so they are read in place (the out-links borrowed while the links admit the packet)
        // instead of being copied for every packet.
        let selected = if arrived_on.is_some() && self.nodes[node.index()].ne.is_some() {
            self.network_element_rdata(node, &packet)
        } else {
            None
        };
        let group = &self.groups[g.index()];
        let out_links = group.tree.out_links(node);
        let member = group.member(node);
        if !out_links.is_empty() {
            let mut arrivals = self.fan_out.begin();
            for &l in out_links {
                if selected.as_ref().is_none_or(|s| s.contains(&l)) {
                    let copy = Rc::clone(&packet);
                    if let Some(t) = admit_to(&mut self.links, &mut self.capture, self.now, l, copy)
                    {
                        arrivals.push((t, l));
                    }
                }
            }
            self.fan_out
                .schedule(arrivals, &mut self.queue, Action::Arrive, Action::ArriveAll);
        }
        if let Some(a) = member {
            self.deliver(a, packet);
        }
    }

    /// A unicast packet passes a PGM network element on its way up. Returns whether to forward it.
    fn network_element_upstream(&mut self, node: NodeId, packet: &Packet, in_link: LinkId) -> bool {
        let Body::Pgm(bytes) = &packet.body else {
            return true;
        };
        let Some(nak) = NakPacket::read(bytes) else {
            return true;
        };
        let down = self.reverse[in_link.index()];
        let Some(ne) = self.nodes[node.index()].ne.as_mut() else {
            return true;
        };
        let decision = ne.on_nak(self.now, &nak.seen(down));
        if decision.ncf {
            if let (Some(g), Some(ncf)) = (nak.group().and_then(address_group), nak.ncf()) {
                let p = Packet {
                    size: ncf.len() as u32 + UDP_IP_OVERHEAD,
                    src: node,
                    dst: Dest::Group(g),
                    flow: packet.flow,
                    to_agent: None,
                    body: Body::Pgm(Rc::new(PgmDatagram::new(&ncf))),
                };
                self.offer(down, Rc::new(p));
            }
        }
        decision.forward
    }

    /// RDATA passes a network element going down: the links it may take (`None` = the whole tree).
    fn network_element_rdata(&mut self, node: NodeId, packet: &Packet) -> Option<Vec<LinkId>> {
        let Body::Pgm(bytes) = &packet.body else {
            return None;
        };
        let (gsi, port, sqn) = rdata_key(bytes)?;
        let ne = self.nodes[node.index()].ne.as_mut()?;
        ne.on_rdata(self.now, gsi, port, sqn)
    }

    fn sample(&mut self) {
        let now = self.now;
        for agent in &mut self.agents {
            if let Agent::PgmSender(a) = agent {
                a.sample(now);
            }
        }
        for (i, &l) in self.observed_links.iter().enumerate() {
            let link = &mut self.links[l.index()];
            let (pkts, _) = link.waiting(now);
            self.queue_samples[i].push((now, pkts));
            self.drop_samples[i].push(link.stats.queue_drops + link.stats.loss_drops);
        }
    }
}

/// Offers `packet` to `link` at `now` (keeping a copy if the link is captured); returns when the link's arrival
/// event is due if it needs one now (it was idle and took the packet: a link with packets in its pipe already has
/// its event, for the earliest). A function of the fields it uses, so that a fan-out can run it while it reads
/// the group's tree.
fn admit_to(
    links: &mut [Link],
    capture: &mut LinkCapture,
    now: Instant,
    link: LinkId,
    packet: Rc<Packet>,
) -> Option<Instant> {
    let copy = (capture.link == Some(link)).then(|| Packet::clone(&packet));
    let l = &mut links[link.index()];
    let idle = l.in_flight() == 0;
    let Offer::Arrives(t) = l.offer(now, packet) else {
        return None;
    };
    if let Some(p) = copy {
        capture.packets.push((t - l.delay(), p));
    }
    idle.then_some(t)
}

/// `agent` stops at `now`, after the events already due then (out of line: rare in the delivery path, where the
/// queue's inlined push would only add to the frame).
#[inline(never)]
fn schedule_stop(queue: &mut EventQueue<Action>, now: Instant, agent: AgentId) {
    queue.push(now, Action::Stop(agent));
}
