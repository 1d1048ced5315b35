//! The source's answers to NAKs (RFC 3208 §5.2, §6.3): NCFs, selective RDATA, and parity (§11.4) — on-demand
//! parity for parity NAKs and the pro-active parity that follows each group's data.

use super::parity_source::{Held, NextParity, ParityNak, ParityPacket};
use super::{RepairPacing, Sender, SenderEvent, REPAIRS_PER_ODATA};
use crate::cc::Permit;
use crate::time::Instant;
use crate::transmit::{Destination, Transmit};
use convoy_wire::{BodyRepr, OptionsRepr, PacketType, ParityOptions};
use std::time::Duration;

/// An NCF waiting to go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Confirm {
    /// Selective: NCF_SQN and OPT_NAK_LIST.
    Selective(Vec<u32>),
    /// A parity NCF: the group's TG_SQN plus NCF_PKT_CNT (§11.3.2).
    Parity(u32),
}

impl Sender {
    /// A NAK asking for repairs: parity for a group (§11.3.1) or selective.
    pub(super) fn on_nak(&mut self, now: Instant, sqn: u32, options: &OptionsRepr) {
        if options.parity.parity {
            self.on_parity_nak(now, sqn);
        } else {
            self.on_selective_nak(now, sqn, options);
        }
    }

    /// How long after an NCF or repair a NAK for the same thing counts as having crossed it: twice the RTT when
    /// the controller knows it (a NAK that crossed the answer arrives within about one RTT of it), else the
    /// configured interval, which also caps it; zero when elimination is off.
    fn elimination_window(&self) -> Duration {
        if self.config.nak_elim_ivl.is_zero() {
            return Duration::ZERO;
        }
        // The controller's snapshot is taken only when elimination is on.
        self.cc
            .snapshot()
            .srtt_s
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(self.config.nak_elim_ivl, |s| {
                Duration::from_secs_f64(2.0 * s)
            })
    }

    /// Queue the repairs a selective NAK asks for, and NCFs for them (RFC 3208 §5.2, §6.3).
    fn on_selective_nak(&mut self, now: Instant, sqn: u32, options: &OptionsRepr) {
        let mut confirmed = Vec::new();
        let within = self.elimination_window();
        for s in std::iter::once(sqn).chain(options.nak_list.iter().copied()) {
            self.stats.nak_sqns += 1;
            if self.txw.get(s).is_none() {
                if !self.app_repairs.covers(s, self.txw.trail()) {
                    self.stats.nak_outside_window += 1;
                    continue;
                }
                if self.app_repairs.request(s) {
                    self.stats.app_repairs_requested += 1;
                    self.push_event(SenderEvent::RepairRequested { sqn: s });
                }
                if self.recent_repairs.confirm(now, s, within) {
                    confirmed.push(s);
                }
                continue;
            }
            let ncf = self.recent_repairs.confirm(now, s, within);
            if ncf {
                confirmed.push(s);
            }
            if self.recent_repairs.recently_repaired(now, s, within) {
                if !ncf {
                    self.stats.nak_sqns_eliminated += 1;
                }
            } else if self.repair_set.insert(s) {
                self.repair_queue.push_back(s);
            }
        }
        if !confirmed.is_empty() {
            // RFC 3208 §5.2: confirm with an NCF (multicast) so other receivers suppress their NAKs.
            for chunk in confirmed.chunks(1 + convoy_wire::MAX_NAK_LIST) {
                self.ncf_queue.push_back(Confirm::Selective(chunk.to_vec()));
            }
            self.last_activity = now;
        }
    }

    /// A parity NAK: confirm it with a parity NCF and owe the group the parity it lacks (§11.4).
    fn on_parity_nak(&mut self, now: Instant, sqn: u32) {
        self.stats.parity_naks += 1;
        let within = self.elimination_window();
        // Groups the application can supply (module `app_repair`) are answered too.
        let window = (self.trail(), self.txw.lead());
        let Some(parity) = self.parity.as_mut() else {
            self.stats.nak_outside_window += 1;
            return;
        };
        match parity.on_nak(now, sqn, window, within) {
            ParityNak::Unavailable => {
                self.stats.nak_outside_window += 1;
                return;
            }
            ParityNak::Covered => self.stats.parity_naks_covered += 1,
            ParityNak::Queued(_) => {}
        }
        // One parity NCF per NAK_SQN (group and count) within the elimination window.
        if self.parity_confirms.confirm(now, sqn, within) {
            self.ncf_queue.push_back(Confirm::Parity(sqn));
            self.last_activity = now;
        }
    }

    /// The next NCF, if one waits.
    pub(super) fn poll_ncf(&mut self, buf: &mut [u8]) -> Option<Transmit> {
        let confirm = self.ncf_queue.pop_front()?;
        self.stats.ncfs += 1;
        let (sqn, options) = match confirm {
            Confirm::Selective(sqns) => (
                sqns[0],
                OptionsRepr {
                    nak_list: sqns[1..].to_vec(),
                    ..OptionsRepr::default()
                },
            ),
            Confirm::Parity(sqn) => (
                sqn,
                OptionsRepr {
                    parity: ParityOptions {
                        parity: true,
                        ..ParityOptions::default()
                    },
                    ..OptionsRepr::default()
                },
            ),
        };
        let body = BodyRepr::Ncf {
            sqn,
            source_nla: self.config.local_nla,
            group_nla: self.config.group,
        };
        let repr = self.downstream(body, options, &[]);
        let len = self.emit(&repr, buf)?;
        Some(Transmit {
            destination: Destination::Group,
            len,
            packet_type: PacketType::Ncf,
        })
    }

    /// The next repair due now: on-demand parity first (one parity packet repairs a different loss at every
    /// receiver of its group), then selective RDATA.
    pub(super) fn poll_rdata(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        if let Some(t) = self.poll_parity(now, buf, false) {
            return Some(t);
        }
        while let Some(&sqn) = self.repair_queue.front() {
            let Some(packet) = self.repair_packet(sqn) else {
                // Fell out of the window while queued.
                self.repair_queue.pop_front();
                self.repair_set.remove(&sqn);
                continue;
            };
            let len_estimate = crate::cc::packet_size(packet.payload.len());
            if !self.repair_permitted(now) || !self.rate_allows(now, len_estimate, true) {
                return None;
            }
            self.repair_queue.pop_front();
            self.repair_set.remove(&sqn);
            self.recent_repairs.repaired(now, sqn);
            let packet = self.repair_packet(sqn)?.clone();
            self.app_repairs.sent(sqn);
            let options = OptionsRepr {
                fragment: packet.fragment,
                ..OptionsRepr::default()
            };
            let body = BodyRepr::Rdata {
                sqn,
                trail: self.trail(),
            };
            let repr = self.downstream(body, options, &packet.payload);
            let len = self.emit(&repr, buf)?;
            self.stats.rdata_packets += 1;
            self.stats.rdata_bytes += packet.payload.len() as u64;
            self.repair_sent(now, len_estimate);
            return Some(Transmit {
                destination: Destination::Group,
                len,
                packet_type: PacketType::Rdata,
            });
        }
        None
    }

    /// A repair of `len_estimate` bytes left: under [`RepairPacing::Controller`] the controller is charged.
    fn repair_sent(&mut self, now: Instant, len_estimate: usize) {
        self.last_activity = now;
        self.repairs_in_a_row = self.repairs_in_a_row.saturating_add(1);
        if self.config.repair_pacing == RepairPacing::Controller {
            self.cc.on_repair_sent(now, len_estimate);
            self.drain_cc_events();
        }
    }

    /// The next parity packet, on-demand (RDATA, under the repair policy and rate) or pro-active (ODATA after
    /// its group's data, §11.4, charged to the controller like original data and under the data rate).
    pub(super) fn poll_parity(
        &mut self,
        now: Instant,
        buf: &mut [u8],
        proactive: bool,
    ) -> Option<Transmit> {
        let parity = self.parity.as_mut()?;
        let waiting = if proactive {
            parity.has_proactive()
        } else {
            parity.has_owed()
        };
        if !waiting {
            return None;
        }
        let len = self.next_parity_len(proactive)?;
        let len_estimate = crate::cc::packet_size(len);
        let permitted = if proactive {
            self.cc.permit_repair(now) == Permit::Now
        } else {
            self.repair_permitted(now)
        };
        if !permitted || !self.rate_allows(now, len_estimate, !proactive) {
            return None;
        }
        let packet = self.parity.as_mut()?.take(now, proactive)?;
        let len = self.emit_parity(&packet, buf)?;
        self.stats.parity_packets += 1;
        self.stats.parity_bytes += packet.payload.len() as u64;
        if proactive {
            // Counted by the controller like any data, but with no sequence number of its own to acknowledge.
            self.last_activity = now;
            self.cc.on_repair_sent(now, len_estimate);
            self.drain_cc_events();
        } else {
            self.repair_sent(now, len_estimate);
        }
        Some(Transmit {
            destination: Destination::Group,
            len,
            packet_type: if proactive {
                PacketType::Odata
            } else {
                PacketType::Rdata
            },
        })
    }

    /// The next parity packet's payload length, its group coded from the window or the application's packets;
    /// groups needing packets from the application ask for them and wait (module `app_repair`).
    fn next_parity_len(&mut self, proactive: bool) -> Option<usize> {
        let lead = self.txw.lead();
        loop {
            let (txw, app, window_trail) = (&self.txw, &self.app_repairs, self.txw.trail());
            let held = |s: u32| match txw.get(s).or_else(|| app.coding_packet(s)) {
                Some(p) => Held::Here(p),
                None if app.covers(s, window_trail) => Held::Fetchable,
                None => Held::Gone,
            };
            match self.parity.as_mut()?.next_len(proactive, held, lead)? {
                NextParity::Ready { group, len } => {
                    if let Some(members) = self.parity.as_ref()?.members(group, lead) {
                        self.app_repairs.coded(members);
                    }
                    return Some(len);
                }
                NextParity::Fetch(group) => self.fetch_group(group, lead),
            }
        }
    }

    /// Ask the application for the packets of the group from `group` that left the window, to code its parity.
    fn fetch_group(&mut self, group: u32, lead: u32) {
        let Some(members) = self.parity.as_ref().and_then(|p| p.members(group, lead)) else {
            return;
        };
        for s in members.collect::<Vec<_>>() {
            if self.txw.get(s).is_none() && self.app_repairs.request_for_coding(s) {
                self.stats.app_repairs_requested += 1;
                self.push_event(SenderEvent::RepairRequested { sqn: s });
            }
        }
    }

    fn emit_parity(&self, packet: &ParityPacket, buf: &mut [u8]) -> Option<usize> {
        let options = OptionsRepr {
            fragment: packet.fragment,
            parity: ParityOptions {
                parity: true,
                var_pktlen: packet.var_len,
                group: packet.group_number,
                curr_tg_size: packet.curr_tg_size,
                params: None,
                code: None,
            },
            ..OptionsRepr::default()
        };
        let (sqn, trail) = (packet.sqn, self.trail());
        let body = if packet.proactive {
            BodyRepr::Odata { sqn, trail }
        } else {
            BodyRepr::Rdata { sqn, trail }
        };
        self.emit(&self.downstream(body, options, &packet.payload), buf)
    }

    /// Under [`RepairPacing::Controller`], whether the controller lets a repair go now: it needs a permit, and
    /// after a repair, original data waiting to go has its turn first.
    pub(super) fn repair_permitted(&self, now: Instant) -> bool {
        match self.config.repair_pacing {
            RepairPacing::RateLimit | RepairPacing::ControllerRate => true,
            RepairPacing::Controller => {
                self.cc.permit_repair(now) == Permit::Now
                    && (self.repairs_in_a_row < REPAIRS_PER_ODATA || self.txw.next_len().is_none())
            }
        }
    }
}
