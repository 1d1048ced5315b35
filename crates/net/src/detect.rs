//! A receiver whose congestion control follows the source's.
//!
//! Sender and receivers must run matching controller halves: a pgmcc source waits for ACKs that a fixed-rate
//! receiver never sends, and would crawl at one packet per feedback timeout. Convoy's data says which it is:
//! each scheme recognises its source from the options on ODATA ([`convoy_proto::cc::Scheme::recognises`]; pgmcc
//! sources put OPT_PGMCC_DATA on every ODATA, draft §2.1.1, fixed-rate ones put none). So a detecting receiver
//! keeps the SPMs and NCFs it hears before the first ODATA (at most [`MAX_EARLY`]), and on that first ODATA
//! rebuilds its engine with the matching controller if needed — the configured one when it matches, else that
//! scheme's defaults adapted to batched reads ([`CcConfig::following`]) — and replays them before the data.

use crate::driver::Endpoint;
use convoy_proto::cc::CcConfig;
use convoy_proto::{Instant, Receiver, ReceiverConfig, Transmit};
use convoy_wire::{BlockRange, BodyRepr, PacketRepr, ReceiverStatus};
use std::net::IpAddr;

/// Datagrams kept before the first ODATA.
pub const MAX_EARLY: usize = 64;

/// The engine, plus what detection needs until the first ODATA.
pub(crate) struct CcFollower {
    pub receiver: Receiver,
    /// `Some` while still detecting.
    detecting: Option<(ReceiverConfig, u64)>,
    early: Vec<(Instant, IpAddr, Vec<u8>)>,
    last_status: Option<(ReceiverStatus, Vec<BlockRange>)>,
    cc_name: &'static str,
}

/// The controller to run for a source whose ODATA carries `packet`'s options.
fn matching(configured: &CcConfig, packet: &PacketRepr<'_>) -> CcConfig {
    let mut cc = configured.following(&packet.options);
    if cc != *configured {
        // Real-network receivers read in batches (see `NetReceiver::open`).
        cc.for_batched_reads();
    }
    cc
}

impl CcFollower {
    /// A receiver running `config.cc` (fixed) or, with `detect`, following the source.
    pub fn new(config: ReceiverConfig, seed: u64, detect: bool) -> Self {
        CcFollower {
            cc_name: config.cc.name(),
            receiver: Receiver::new(config.clone(), seed),
            detecting: detect.then_some((config, seed)),
            early: Vec::new(),
            last_status: None,
        }
    }

    /// Send a status report with the blocks this receiver lacks (kept across a rebuild).
    pub fn send_status(&mut self, status: ReceiverStatus, needs: Vec<BlockRange>) {
        self.last_status = Some((status, needs.clone()));
        self.receiver.send_status_with_needs(status, needs);
    }

    /// The name of the controller in use.
    pub fn cc_name(&self) -> &'static str {
        self.cc_name
    }
}

impl Endpoint for CcFollower {
    fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &[u8]) {
        if let Some((config, seed)) = &self.detecting {
            match PacketRepr::parse(bytes) {
                Ok(p) if matches!(p.body, BodyRepr::Odata { .. }) => {
                    let cc = matching(&config.cc, &p);
                    if cc != config.cc {
                        let status_pending = self.receiver.status_pending();
                        let mut config = config.clone();
                        self.cc_name = cc.name();
                        config.cc = cc;
                        self.receiver = Receiver::new(config, *seed);
                        for (t, f, b) in self.early.drain(..) {
                            self.receiver.handle_datagram(t, f, &b);
                        }
                        if let (true, Some((s, needs))) = (status_pending, self.last_status.clone())
                        {
                            self.receiver.send_status_with_needs(s, needs);
                        }
                    }
                    self.detecting = None;
                    self.early = Vec::new();
                }
                Ok(_) if self.early.len() < MAX_EARLY => {
                    self.early.push((now, from, bytes.to_vec()))
                }
                _ => {}
            }
        }
        self.receiver.handle_datagram(now, from, bytes)
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.receiver.handle_timeout(now)
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        self.receiver.poll_transmit(now, buf)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.receiver.poll_timeout()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_proto::cc::fixed::FixedConfig;
    use convoy_proto::{Sender, SenderConfig};
    use convoy_wire::PacketType;
    use std::net::Ipv4Addr;

    fn run(source: CcConfig, configured: CcConfig, detect: bool) -> (u64, &'static str) {
        let src = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        let group = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
        let mut sc = SenderConfig::new(src, group);
        sc.cc = source;
        let mut s = Sender::new(sc, Instant::ZERO);
        let mut rc = ReceiverConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), group);
        rc.cc = configured;
        let mut r = CcFollower::new(rc, 1, detect);
        s.write(b"hello").unwrap();
        let mut buf = vec![0u8; 2048];
        let now = Instant::ZERO;
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            r.handle_datagram(now, src, &buf[..t.len]);
        }
        let mut acks = 0;
        while let Some(t) = r.poll_transmit(now + std::time::Duration::from_secs(1), &mut buf) {
            if t.packet_type == PacketType::Ack || t.packet_type == PacketType::Nak {
                acks += 1;
            }
        }
        (acks, r.cc_name())
    }

    #[test]
    fn a_fixed_receiver_follows_a_pgmcc_source() {
        let pgmcc = CcConfig::default();
        let fixed = CcConfig::Fixed(FixedConfig::default());
        assert_eq!(run(pgmcc.clone(), fixed.clone(), false), (0, "fixed"));
        let (feedback, name) = run(pgmcc.clone(), fixed.clone(), true);
        assert_eq!(name, "pgmcc");
        assert!(feedback > 0, "the election is answered");
        assert_eq!(run(fixed.clone(), pgmcc, true).1, "fixed");
        assert_eq!(run(fixed.clone(), fixed, true).1, "fixed");
    }
}
