//! Application-backed repairs: data the transmit window has already dropped, read back by the application.
//!
//! The transmit window keeps `txw_max_packets` packets for repair (RFC 3208 §3). A file sender can repair any
//! byte of the transfer from the file itself, so Convoy lets the application promise that: after
//! [`crate::Sender::set_repair_floor`]`(Some(floor))` the source advertises TXW_TRAIL = `floor` for as long as
//! the window's own trail is later (receivers then never declare those packets lost), and a NAK for a sequence
//! number in `[floor, window trail)` is confirmed with an NCF as usual and surfaces as
//! [`crate::SenderEvent::RepairRequested`]. The application answers with
//! [`crate::Sender::supply_repair`], handing over the whole APDU and the sequence number of its first packet;
//! the source cuts the requested TSDU out of it by the same fragmentation rule as `write` (RFC 3208 §9.3) and
//! queues the RDATA, which then leaves under the same rate limits as any repair.
//!
//! With parity (RFC 3208 §11.4) a parity NAK for a group whose packets left the window asks the application
//! for those packets too: they are held (not sent) until the group is coded, then released.
//!
//! Nothing here reads a file or a clock: the engine stays sans-IO; the driver decides how to fetch the bytes.

use super::txw::TxPacket;
use crate::seq;
use convoy_wire::FragmentOption;
use std::collections::BTreeMap;

/// Bound on repairs requested from the application and not yet supplied, and on supplied repairs waiting for
/// the rate limiter; NAKs beyond it are dropped (the receivers NAK again after NAK_RPT_IVL).
pub const MAX_APP_REPAIRS: usize = 65_536;

/// The TSDU `sqn` of an APDU whose first packet is `first_sqn`, as [`crate::Sender::write`] fragments it with
/// `max_tsdu` bytes per packet; `None` if `sqn` is not one of its packets.
pub fn tsdu_of(first_sqn: u32, sqn: u32, apdu: &[u8], max_tsdu: usize) -> Option<TxPacket> {
    let max_tsdu = max_tsdu.max(1);
    let index = usize::try_from(seq::diff(sqn, first_sqn)).ok()?;
    if apdu.len() <= max_tsdu {
        return (index == 0).then(|| TxPacket {
            payload: apdu.to_vec(),
            fragment: None,
        });
    }
    let offset = index.checked_mul(max_tsdu)?;
    if offset >= apdu.len() {
        return None;
    }
    let end = (offset + max_tsdu).min(apdu.len());
    Some(TxPacket {
        payload: apdu[offset..end].to_vec(),
        fragment: Some(FragmentOption {
            first_sqn,
            offset: u32::try_from(offset).ok()?,
            apdu_len: u32::try_from(apdu.len()).ok()?,
        }),
    })
}

/// What a packet was asked of the application for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Wanted {
    /// To be sent as selective RDATA.
    pub repair: bool,
    /// To code its group's parity.
    pub coding: bool,
}

/// Requests to the application and the repairs it supplied.
#[derive(Debug, Default)]
pub(super) struct AppRepairs {
    /// The oldest sequence number the application can repair.
    pub floor: Option<u32>,
    /// Requested from the application, not yet supplied.
    requested: BTreeMap<u32, Wanted>,
    /// Supplied, waiting to be sent.
    ready: BTreeMap<u32, TxPacket>,
    /// Supplied, held to code a group's parity.
    coding: BTreeMap<u32, TxPacket>,
}

impl AppRepairs {
    /// Whether the application covers `sqn`, given the window's own trail.
    pub fn covers(&self, sqn: u32, window_trail: u32) -> bool {
        self.floor
            .is_some_and(|f| seq::ge(sqn, f) && seq::lt(sqn, window_trail))
    }

    /// The trail to advertise: the floor while it is older than the window's trail.
    pub fn advertised_trail(&self, window_trail: u32) -> u32 {
        match self.floor {
            Some(f) if seq::lt(f, window_trail) => f,
            _ => window_trail,
        }
    }

    fn full(&self) -> bool {
        self.requested.len() + self.ready.len() + self.coding.len() >= MAX_APP_REPAIRS
    }

    /// Note a request for a selective repair; true if the application must be asked (not already pending or
    /// supplied).
    pub fn request(&mut self, sqn: u32) -> bool {
        if self.ready.contains_key(&sqn) {
            return false;
        }
        self.ask(sqn, |w| w.repair = true)
    }

    /// Note a request for a packet to code its group's parity; true if the application must be asked.
    pub fn request_for_coding(&mut self, sqn: u32) -> bool {
        if self.coding.contains_key(&sqn) {
            return false;
        }
        if let Some(p) = self.ready.get(&sqn) {
            let p = p.clone();
            self.coding.insert(sqn, p);
            return false;
        }
        self.ask(sqn, |w| w.coding = true)
    }

    /// Add what `want` marks to the request for `sqn`: true if it is new (the application must be asked), false
    /// if it joined a pending one or the requests are full.
    fn ask(&mut self, sqn: u32, want: impl Fn(&mut Wanted)) -> bool {
        if let Some(w) = self.requested.get_mut(&sqn) {
            want(w);
            return false;
        }
        if self.full() {
            return false;
        }
        let mut w = Wanted::default();
        want(&mut w);
        self.requested.insert(sqn, w);
        true
    }

    /// The application supplied `packet` for `sqn`: what it had been requested for (nothing if it was not),
    /// and now is queued or held.
    pub fn supply(&mut self, sqn: u32, packet: TxPacket) -> Wanted {
        let Some(wanted) = self.requested.remove(&sqn) else {
            return Wanted::default();
        };
        if wanted.coding {
            self.coding.insert(sqn, packet.clone());
        }
        if wanted.repair {
            self.ready.insert(sqn, packet);
        }
        wanted
    }

    /// A packet held for coding.
    pub fn coding_packet(&self, sqn: u32) -> Option<&TxPacket> {
        self.coding.get(&sqn)
    }

    /// The group's packets `sqns` are coded: stop holding them.
    pub fn coded(&mut self, sqns: impl Iterator<Item = u32>) {
        if self.coding.is_empty() {
            // Every parity packet sent asks; only a group coded from the application's packets holds any.
            return;
        }
        for s in sqns {
            self.coding.remove(&s);
        }
    }

    /// A supplied repair.
    pub fn get(&self, sqn: u32) -> Option<&TxPacket> {
        self.ready.get(&sqn)
    }

    /// Forget a repair once sent.
    pub fn sent(&mut self, sqn: u32) {
        self.ready.remove(&sqn);
    }

    /// Requests not yet answered.
    pub fn pending(&self) -> usize {
        self.requested.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3208_9_3_tsdu_of_matches_write_fragmentation() {
        let apdu: Vec<u8> = (0..10).collect();
        let p = tsdu_of(100, 102, &apdu, 4).unwrap();
        assert_eq!(p.payload, vec![8, 9]);
        assert_eq!(
            p.fragment,
            Some(FragmentOption {
                first_sqn: 100,
                offset: 8,
                apdu_len: 10
            })
        );
        assert!(tsdu_of(100, 103, &apdu, 4).is_none());
        assert!(tsdu_of(100, 99, &apdu, 4).is_none());
        let small = tsdu_of(7, 7, b"abc", 4).unwrap();
        assert_eq!((small.payload, small.fragment), (b"abc".to_vec(), None));
        assert!(tsdu_of(7, 8, b"abc", 4).is_none());
    }

    #[test]
    fn floor_is_advertised_only_while_older_than_the_window() {
        let mut r = AppRepairs::default();
        assert_eq!(r.advertised_trail(50), 50);
        r.floor = Some(10);
        assert_eq!(r.advertised_trail(50), 10);
        assert!(r.covers(10, 50) && r.covers(49, 50));
        assert!(!r.covers(9, 50) && !r.covers(50, 50));
        assert_eq!(r.advertised_trail(5), 5);
    }

    #[test]
    fn requests_are_deduplicated_and_supplies_must_match() {
        let mut r = AppRepairs {
            floor: Some(0),
            ..AppRepairs::default()
        };
        assert!(r.request(3));
        assert!(!r.request(3));
        let p = TxPacket {
            payload: vec![1],
            fragment: None,
        };
        assert_eq!(r.supply(4, p.clone()), Wanted::default(), "not requested");
        assert!(r.supply(3, p).repair);
        assert!(!r.request(3), "already supplied, waiting to be sent");
        assert!(r.get(3).is_some());
        r.sent(3);
        assert!(r.request(3), "a new NAK after the repair left asks again");
        assert_eq!(r.pending(), 1);
    }

    #[test]
    fn rfc3208_11_4_packets_for_coding_are_held_until_coded_and_share_requests() {
        let mut r = AppRepairs {
            floor: Some(0),
            ..AppRepairs::default()
        };
        let p = |b: u8| TxPacket {
            payload: vec![b],
            fragment: None,
        };
        assert!(r.request_for_coding(4));
        assert!(!r.request(4), "already asked for, now for both");
        assert_eq!(
            r.supply(4, p(4)),
            Wanted {
                repair: true,
                coding: true
            }
        );
        assert!(r.get(4).is_some() && r.coding_packet(4).is_some());
        assert!(!r.request_for_coding(4), "held");
        assert!(r.request(5));
        assert!(r.supply(5, p(5)).repair);
        assert!(!r.request_for_coding(5), "a supplied repair is held too");
        assert_eq!(r.coding_packet(5).map(|q| q.payload[0]), Some(5));
        r.coded(4..6);
        assert!(r.coding_packet(4).is_none() && r.coding_packet(5).is_none());
        assert!(r.get(4).is_some(), "the selective repair still goes");
    }
}
