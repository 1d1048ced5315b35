//! A receiver's parity (RFC 3208 §11.5): the packets of each transmission group kept until the group is whole,
//! parity packets gathered and decoded, and NAKs for whole groups turned into parity NAKs.
//!
//! Parity starts at the first group boundary after the first SPM announcing it (OPT_PARITY_PRM): earlier
//! groups, whose packets this receiver did not keep, are repaired by selective NAKs, as is the partial group
//! at the lead (§11.5: "a receiver MUST NOT send selective NAKs, except in partial transmission groups"). A
//! group is whole for NAKing once the lead reached its last packet (k, or the size OPT_CURR_TGSIZE gave).

use std::collections::BTreeMap;

use convoy_wire::{FragmentOption, ParityParams};

use crate::parity::{self, ShardLayout, FRAGMENT_PREFIX};
use crate::payload::Payload;
use crate::seq;
use crate::time::Instant;
use std::time::Duration;

/// A parity packet kept: its parity number and its coded bytes (the encoded fragment option's value first when
/// the group has one, then the payload).
#[derive(Clone, Debug)]
struct ParityShard {
    index: u32,
    coded: Vec<u8>,
}

/// What a receiver holds of one group.
#[derive(Clone, Debug, Default)]
struct Group {
    /// Data packets received: (index in the group, TSDU, fragment option).
    data: Vec<(u32, Payload, Option<FragmentOption>)>,
    parity: Vec<ParityShard>,
    /// From the first parity packet: OPT_VAR_PKTLEN, and whether it carried an encoded OPT_FRAGMENT.
    layout: Option<(bool, bool)>,
    /// OPT_CURR_TGSIZE: the group is this short.
    size: Option<u32>,
    /// The group's parity NAK back-off ran (module `parity_repair`): its NAK goes when due.
    backed_off: bool,
    /// When this receiver last sent the group a parity NAK.
    nak_sent_at: Option<Instant>,
}

/// A parity packet as received.
#[derive(Clone, Copy, Debug)]
pub struct ParityArrival<'a> {
    /// DATA_SQN.
    pub sqn: u32,
    /// OPT_PARITY_GRP.
    pub group_number: Option<u32>,
    /// OPT_VAR_PKTLEN.
    pub var_len: bool,
    /// The encoded OPT_FRAGMENT.
    pub fragment: Option<FragmentOption>,
    /// OPT_CURR_TGSIZE.
    pub curr_tg_size: Option<u32>,
    /// The parity bytes.
    pub payload: &'a [u8],
}

/// A data packet restored from parity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// Its sequence number.
    pub sqn: u32,
    /// Its TSDU.
    pub tsdu: Vec<u8>,
    /// Its fragment option.
    pub fragment: Option<FragmentOption>,
}

/// Counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParityStats {
    /// Parity packets received.
    pub parity_received: u64,
    /// Parity packets of no use: for a group already whole, before parity started, a number held already or
    /// past the group's last.
    pub parity_unused: u64,
    /// Data packets restored from parity.
    pub restored: u64,
    /// Groups whose parity could not be decoded (inconsistent packets): left to selective repair.
    pub decode_errors: u64,
    /// Parity NAKs sent.
    pub parity_naks: u64,
}

/// A receiver's transmission groups (module docs).
#[derive(Clone, Debug)]
pub struct ParityGroups {
    params: ParityParams,
    k: u32,
    /// Groups from this TG_SQN on are repaired with parity.
    first_tg: u32,
    groups: BTreeMap<u32, Group>,
    /// The delivery point's group when groups behind it were last dropped.
    pruned_at: u32,
    /// Parity packets held in all groups (awaiting their groups' decoding).
    parity_held: usize,
    /// Smoothed time from this receiver's parity NAKs to the NCFs for their groups: about a round trip to the
    /// source.
    ncf_delay: Option<Duration>,
    stats: ParityStats,
}

impl ParityGroups {
    /// Parity as an SPM announced it (`params`, its size a power of 2 checked by the caller), for groups from
    /// the first boundary at or after `next_sqn`, the first sequence number this receiver has not seen yet.
    pub fn new(params: ParityParams, next_sqn: u32) -> Self {
        let k = params.tg_size;
        let first_tg = next_sqn.wrapping_add(k - 1) & !(k - 1);
        ParityGroups {
            params,
            k,
            first_tg,
            groups: BTreeMap::new(),
            pruned_at: first_tg,
            parity_held: 0,
            ncf_delay: None,
            stats: ParityStats::default(),
        }
    }

    /// The announced parameters.
    pub fn params(&self) -> ParityParams {
        self.params
    }

    /// Counters.
    pub fn stats(&self) -> &ParityStats {
        &self.stats
    }

    /// TG_SQN of the group of `sqn`.
    pub fn group_of(&self, sqn: u32) -> u32 {
        sqn & !(self.k - 1)
    }

    /// Whether the group of `sqn` is repaired with parity.
    pub fn covers(&self, sqn: u32) -> bool {
        seq::ge(self.group_of(sqn), self.first_tg)
    }

    /// The size of the group from `tg`: k unless OPT_CURR_TGSIZE said less.
    pub fn size_of(&self, tg: u32) -> u32 {
        self.groups
            .get(&tg)
            .and_then(|g| g.size)
            .unwrap_or(self.k)
            .clamp(1, self.k)
    }

    /// OPT_CURR_TGSIZE `n` for the group of `sqn` (on its last ODATA, its parity or an SPM).
    pub fn note_size(&mut self, sqn: u32, n: u32) {
        if self.covers(sqn) && (1..self.k).contains(&n) {
            let tg = self.group_of(sqn);
            self.groups.entry(tg).or_default().size = Some(n);
        }
    }

    /// A data packet the receive window stored.
    pub fn on_data(&mut self, sqn: u32, tsdu: Payload, fragment: Option<FragmentOption>) {
        if !self.covers(sqn) {
            return;
        }
        let tg = self.group_of(sqn);
        let index = sqn.wrapping_sub(tg);
        let g = self.groups.entry(tg).or_default();
        if g.data.iter().all(|(i, ..)| *i != index) {
            g.data.push((index, tsdu, fragment));
        }
    }

    /// A parity packet of no use: its group is whole.
    pub fn count_unused(&mut self) {
        self.stats.parity_received += 1;
        self.stats.parity_unused += 1;
    }

    /// A parity packet; false when it is of no use (its group not covered, or its number held already).
    pub fn on_parity(&mut self, p: &ParityArrival<'_>) -> bool {
        self.stats.parity_received += 1;
        if !self.covers(p.sqn) {
            self.stats.parity_unused += 1;
            return false;
        }
        if let Some(n) = p.curr_tg_size {
            self.note_size(p.sqn, n);
        }
        let tg = self.group_of(p.sqn);
        // §11.2: the parity number is PKT_SQN plus k times OPT_PARITY_GRP.
        let index = p
            .group_number
            .unwrap_or(0)
            .saturating_mul(self.k)
            .saturating_add(p.sqn.wrapping_sub(tg));
        let numbers = parity::parity_count(self.size_of(tg) as usize);
        let g = self.groups.entry(tg).or_default();
        let layout = (p.var_len, p.fragment.is_some());
        if index as usize >= numbers
            || g.parity.iter().any(|s| s.index == index)
            || g.layout.is_some_and(|l| l != layout)
        {
            self.stats.parity_unused += 1;
            return false;
        }
        g.layout = Some(layout);
        let mut coded = Vec::with_capacity(FRAGMENT_PREFIX + p.payload.len());
        if let Some(f) = p.fragment {
            coded = parity::coded_tsdu(&[], Some(f), true);
            coded.truncate(FRAGMENT_PREFIX);
        }
        coded.extend_from_slice(p.payload);
        g.parity.push(ParityShard { index, coded });
        self.parity_held += 1;
        true
    }

    /// Parity packets held in all groups, waiting for their groups to decode.
    pub fn parity_held_total(&self) -> usize {
        self.parity_held
    }

    /// Forget the group from `tg` and the parity it held.
    fn drop_group(&mut self, tg: u32) {
        if let Some(g) = self.groups.remove(&tg) {
            self.parity_held -= g.parity.len();
        }
    }

    /// Parity packets held for the group from `tg`.
    pub fn parity_held(&self, tg: u32) -> u32 {
        self.groups.get(&tg).map_or(0, |g| g.parity.len() as u32)
    }

    /// The group from `tg` restored when it has as many packets as it has data packets and `missing` of them
    /// (sequence numbers) are missing: the missing packets, or nothing (not enough yet, or the group's packets
    /// disagree: then its parity is dropped and the count kept in [`ParityStats::decode_errors`]).
    pub fn restore(&mut self, tg: u32, missing: &[u32]) -> Vec<Restored> {
        let n = self.size_of(tg);
        let Some(g) = self.groups.get(&tg) else {
            return Vec::new();
        };
        let Some((var_len, with_fragments)) = g.layout else {
            return Vec::new();
        };
        if missing.is_empty() || g.data.len() + g.parity.len() < n as usize {
            return Vec::new();
        }
        let data: Vec<(usize, Vec<u8>)> = g
            .data
            .iter()
            .filter(|(i, ..)| *i < n)
            .map(|(i, t, f)| (*i as usize, parity::coded_tsdu(t, *f, with_fragments)))
            .collect();
        let data_refs: Vec<(usize, &[u8])> = data.iter().map(|(i, t)| (*i, &t[..])).collect();
        let parity_refs: Vec<(usize, &[u8])> = g
            .parity
            .iter()
            .filter(|s| (s.index as usize) < parity::parity_count(n as usize))
            .map(|s| (s.index as usize, &s.coded[..]))
            .collect();
        let Some(shard_len) = parity_refs.first().map(|(_, p)| p.len()) else {
            return Vec::new();
        };
        let layout = ShardLayout::from_parity(shard_len, var_len);
        match parity::decode(n as usize, layout, &data_refs, &parity_refs) {
            Ok(restored) => {
                self.drop_group(tg);
                let out: Vec<Restored> = restored
                    .into_iter()
                    .map(|(i, coded)| {
                        restored_packet(tg.wrapping_add(i as u32), coded, with_fragments)
                    })
                    .filter(|r| missing.contains(&r.sqn))
                    .collect();
                self.stats.restored += out.len() as u64;
                out
            }
            Err(parity::ParityError::TooFew { .. }) => Vec::new(),
            Err(_) => {
                self.stats.decode_errors += 1;
                if let Some(g) = self.groups.get_mut(&tg) {
                    self.parity_held -= g.parity.len();
                    g.parity.clear();
                    g.layout = None;
                }
                Vec::new()
            }
        }
    }

    /// A parity NAK for the group from `tg` went out at `now`.
    pub fn nak_sent(&mut self, tg: u32, now: Instant) {
        self.stats.parity_naks += 1;
        if let Some(g) = self.groups.get_mut(&tg) {
            g.nak_sent_at = Some(now);
        }
    }

    /// A parity NCF for the group from `tg` arrived at `now`: the time since this receiver's NAK for it is a
    /// sample of the NAK-to-NCF delay (gain 1/8, as RFC 6298 smooths an RTT).
    pub fn ncf_heard(&mut self, tg: u32, now: Instant) {
        let Some(sent) = self.groups.get_mut(&tg).and_then(|g| g.nak_sent_at.take()) else {
            return;
        };
        let sample = now.saturating_duration_since(sent);
        self.ncf_delay = Some(match self.ncf_delay {
            None => sample,
            Some(d) => d - d / 8 + sample / 8,
        });
    }

    /// The smoothed NAK-to-NCF delay, once measured.
    pub fn ncf_delay(&self) -> Option<Duration> {
        self.ncf_delay
    }

    /// Whether the group from `tg` ran its parity NAK back-off; marks it as running it now if not.
    pub fn start_back_off(&mut self, tg: u32) -> bool {
        let g = self.groups.entry(tg).or_default();
        std::mem::replace(&mut g.backed_off, true)
    }

    /// Drop the groups wholly before the delivery point `commit` (delivered or lost), and a group whose data is
    /// all here.
    pub fn prune(&mut self, commit: u32, whole: Option<u32>) {
        if let Some(tg) = whole {
            let n = self.size_of(tg) as usize;
            if self.groups.get(&tg).is_some_and(|g| g.data.len() >= n) {
                self.drop_group(tg);
            }
        }
        let at = self.group_of(commit);
        if at == self.pruned_at {
            return;
        }
        self.pruned_at = at;
        let k = self.k;
        let held = &mut self.parity_held;
        self.groups.retain(|tg, g| {
            let keep = seq::ge(tg.wrapping_add(k - 1), commit);
            if !keep {
                *held -= g.parity.len();
            }
            keep
        });
    }

    /// Groups held.
    pub fn held(&self) -> usize {
        self.groups.len()
    }
}

/// A restored coded TSDU as the packet it was.
fn restored_packet(sqn: u32, coded: Vec<u8>, with_fragments: bool) -> Restored {
    if !with_fragments {
        return Restored {
            sqn,
            tsdu: coded,
            fragment: None,
        };
    }
    let fragment = parity::fragment_of_prefix(&coded);
    let tsdu = coded.get(FRAGMENT_PREFIX..).unwrap_or(&[]).to_vec();
    Restored {
        sqn,
        tsdu,
        fragment,
    }
}
