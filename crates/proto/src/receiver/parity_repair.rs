//! The receiver's side of parity repairs (RFC 3208 §11.5): learning the source's parity from SPMs, keeping each
//! group's packets, decoding parity into the receive window, and asking for parity instead of selective repairs.

use super::parity_groups::{ParityArrival, ParityGroups};
use super::{PayloadSource, Receiver};
use crate::parity::MAX_GROUP;
use crate::payload::Payload;
use crate::rxw::Fragment;
use crate::time::Instant;
use convoy_wire::{BodyRepr, FragmentOption, PacketRepr, ParityOptions};
use rand_core::RngCore;
use std::sync::Arc;
use std::time::Duration;

/// A parity NAK's back-off spans this many NAK-to-NCF delays (at least NAK_BO_IVL): the first NCF of a group
/// reaches the other receivers within about one, so about three quarters of them hear it before their NAK is due.
const NCF_DELAYS_OF_BACK_OFF: u32 = 4;

/// How long a pause of the data, in NAK-to-NCF delays, means the source has no more data for now (§11.5,
/// [`Receiver::source_out_of_data`]).
const OUT_OF_DATA_NCF_DELAYS: u32 = 2;

/// A NAK waiting to go: selective (NAK_SQN then OPT_NAK_LIST) or a parity NAK (TG_SQN plus NAK_PKT_CNT).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NakOut {
    Selective(Vec<u32>),
    Parity(u32),
}

impl Receiver {
    /// An SPM's parity options: parity starts at the first one announcing it (§11.5) with Convoy's code
    /// (OPT_CONVOY_PARITY_CODE), and OPT_CURR_TGSIZE tells the last group's size.
    pub(super) fn parity_on_spm(&mut self, options: &ParityOptions, lead: u32) {
        if self.parity.is_none() {
            // Only Convoy's code decodes here: another implementation's parity (OpenPGM's GF(2^8)) is ignored, and
            // its losses are repaired selectively.
            let Some(params) = options
                .params
                .filter(|_| options.code == Some(convoy_wire::PARITY_CODE_RS16))
            else {
                return;
            };
            let k = params.tg_size;
            if !k.is_power_of_two() || k < 2 || k as usize > MAX_GROUP {
                return;
            }
            let next = self.rxw.lead().wrapping_add(1);
            self.parity = Some(Box::new(ParityGroups::new(params, next)));
        }
        if let (Some(p), Some(n)) = (self.parity.as_mut(), options.curr_tg_size) {
            p.note_size(lead, n);
        }
    }

    /// A data packet the receive window stored: kept for its group's decoding.
    pub(super) fn parity_keep(
        &mut self,
        now: Instant,
        sqn: u32,
        payload: PayloadSource<'_>,
        fragment: Option<FragmentOption>,
        curr_tg_size: Option<u32>,
    ) {
        let Some(p) = self.parity.as_mut().filter(|p| p.covers(sqn)) else {
            return;
        };
        let tsdu = match payload {
            PayloadSource::Borrowed(b) => Payload::from(b),
            PayloadSource::Shared(datagram, at) => {
                Payload::shared(Arc::clone(datagram), at..datagram.len())
            }
        };
        p.on_data(sqn, tsdu, fragment);
        if let Some(n) = curr_tg_size {
            p.note_size(sqn, n);
        }
        let tg = p.group_of(sqn);
        if p.parity_held(tg) > 0 {
            self.parity_restore(now, tg);
        }
        let commit = self.rxw.commit();
        if let Some(p) = self.parity.as_mut() {
            p.prune(commit, Some(tg));
            self.rxw.set_repairs_held(p.parity_held_total());
        }
    }

    /// A parity packet (ODATA or RDATA with OPT_PARITY) of the session joined: the controller counts it as a
    /// repair (it has no sequence number of the data's own).
    pub(super) fn on_parity_data(
        &mut self,
        now: Instant,
        packet: &PacketRepr<'_>,
        payload: PayloadSource<'_>,
    ) {
        let bytes = match payload {
            PayloadSource::Borrowed(p) => p,
            PayloadSource::Shared(datagram, at) => datagram.get(at..).unwrap_or(&[]),
        };
        // Counted by the parity counters (`ParityStats`), not as data, pro-active (ODATA) or on demand (RDATA).
        self.cc.on_rdata(now, crate::cc::packet_size(bytes.len()));
        let (BodyRepr::Odata { sqn, .. } | BodyRepr::Rdata { sqn, .. }) = packet.body else {
            return;
        };
        let o = &packet.options;
        let arrival = ParityArrival {
            sqn,
            group_number: o.parity.group,
            var_len: o.parity.var_pktlen,
            fragment: o.fragment,
            curr_tg_size: o.parity.curr_tg_size,
            payload: bytes,
        };
        self.parity_packet(now, &arrival);
        if let Some(p) = self.parity.as_ref() {
            self.rxw.set_repairs_held(p.parity_held_total());
        }
        self.drain(now);
    }

    /// A parity packet's arrival.
    fn parity_packet(&mut self, now: Instant, arrival: &ParityArrival<'_>) {
        let Some(p) = self.parity.as_mut() else {
            self.stats.ignored += 1;
            return;
        };
        let tg = p.group_of(arrival.sqn);
        let n = arrival.curr_tg_size.unwrap_or_else(|| p.size_of(tg));
        // §11.5: a parity packet ends its group: everything up to the group's last packet exists.
        let last = tg.wrapping_add(n.clamp(1, p.params().tg_size) - 1);
        if crate::seq::gt(last, self.rxw.lead()) && p.covers(arrival.sqn) {
            let trail = self.rxw.trail();
            self.rxw.on_spm(now, &mut self.rng, trail, last);
        }
        let Some(p) = self.parity.as_mut() else {
            return;
        };
        if self.rxw.missing_in(tg, p.size_of(tg)).is_empty() {
            // Whole already (or delivered): nothing to restore.
            p.count_unused();
            return;
        }
        if p.on_parity(arrival) {
            self.parity_restore(now, tg);
        }
    }

    /// Decode the group from `tg` if it has enough packets, and give the window what it restores.
    fn parity_restore(&mut self, now: Instant, tg: u32) {
        let Some(p) = self.parity.as_mut() else {
            return;
        };
        let missing = self.rxw.missing_in(tg, p.size_of(tg));
        let trail = self.rxw.trail();
        for r in p.restore(tg, &missing) {
            let fragment = r.fragment.map(Fragment::from);
            if self
                .rxw
                .on_data(now, &mut self.rng, r.sqn, trail, fragment, &r.tsdu)
                .is_err()
            {
                self.stats.rejected += 1;
            }
        }
    }

    /// A parity NCF (§11.3.2): the group's missing packets wait for the parity it confirms when that covers
    /// what this receiver lacks (a NAK asking for fewer does not answer ours).
    pub(super) fn parity_on_ncf(&mut self, now: Instant, sqn: u32) {
        let Some(p) = self.parity.as_ref() else {
            return;
        };
        let k = p.params().tg_size;
        let tg = p.group_of(sqn);
        let confirmed = (sqn & (k - 1)) + 1;
        let missing = self.rxw.missing_in(tg, p.size_of(tg));
        if !missing.is_empty() && self.parity_wanted(tg, missing.len()) <= confirmed {
            self.rxw.on_ncf(now, &missing);
        }
        if let Some(p) = self.parity.as_mut() {
            p.ncf_heard(tg, now);
        }
    }

    /// A group just whole waits a back-off before its parity NAK: uniform in [0, B / its need] with B the larger
    /// of NAK_BO_IVL and four NAK-to-NCF delays (§11.5: "bias the value of NAK_BO_IVL for parity NAKs inversely
    /// proportional to NAK_PKT_CNT", so that larger losses NAK first). Every receiver of a group finds it whole
    /// at about the same moment; a back-off of several round trips lets the first NCF reach the others while
    /// they wait, and the NCF of a count that covers a receiver's need suppresses its NAK. `polled` are the
    /// sequence numbers the window just gave as due (they go back to waiting).
    fn parity_back_off(&mut self, now: Instant, tg: u32, n: u32, polled: &[u32]) {
        let Some(p) = self.parity.as_ref() else {
            return;
        };
        let mine: Vec<u32> = polled
            .iter()
            .copied()
            .filter(|&s| p.group_of(s) == tg)
            .collect();
        let missing = self.rxw.missing_in(tg, n);
        let need = self.parity_wanted(tg, missing.len()).max(1);
        let widest = self.parity_back_off_width();
        self.rxw.defer_naks(now, &mut self.rng, &mine, false);
        let draw = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let at = now + (widest / need).mul_f64(draw);
        self.rxw.rearm_group(now, tg, n, at);
    }

    /// B, the widest parity NAK back-off: NAK_BO_IVL, or four NAK-to-NCF delays once one was measured.
    fn parity_back_off_width(&self) -> Duration {
        let bo = self.rxw.config().nak_bo_ivl;
        self.parity
            .as_ref()
            .and_then(|p| p.ncf_delay())
            .map_or(bo, |d| bo.max(d * NCF_DELAYS_OF_BACK_OFF))
    }

    /// RFC 3208 §11.5: "In the absence of data (detected from SPMs bearing SPM_LEAD equal to RXW_LEAD) on
    /// non-transmission-group boundaries, receivers MAY resort to selective NAKs". Heartbeat SPMs follow any
    /// pause of the data longer than IHB_MIN (§5.1.5, 50 ms), also that of a source only waiting for its
    /// controller (pgmcc's ACK clock); read as absence, most losses of partial groups went in selective NAKs
    /// (cmp-uncorrelated-loss, pgmcc, 100 receivers, seed 1: 1,990 repairs for 16,363 packets in groups of 32 and
    /// 2,784 for 15,036 in groups of 128; with this rule 1,326 for 17,203 and 711 for 18,432, near the ~700 the
    /// groups of 128 need). The source counts as out of data once SPMs have said so for
    /// [`OUT_OF_DATA_NCF_DELAYS`] NAK-to-NCF delays (about round trips; NAK_BO_IVL before one was measured): a
    /// source waiting for feedback resumes within about one.
    fn source_out_of_data(&self, now: Instant, lead: u32) -> bool {
        let pause = self
            .parity
            .as_ref()
            .and_then(|p| p.ncf_delay())
            .map_or(self.rxw.config().nak_bo_ivl, |d| d * OUT_OF_DATA_NCF_DELAYS);
        self.spm_lead
            .is_some_and(|(l, since)| l == lead && now.saturating_duration_since(since) >= pause)
    }

    /// NAK_PKT_CNT + 1 for the group from `tg` with `missing` packets missing: what the parity held does not
    /// cover, plus what a short group lacks of k (§11.4–11.5: receivers ask as if the group were whole).
    fn parity_wanted(&self, tg: u32, missing: usize) -> u32 {
        let Some(p) = self.parity.as_ref() else {
            return 0;
        };
        let k = p.params().tg_size;
        let need = (missing as u32).saturating_sub(p.parity_held(tg)).max(1);
        (need + (k - p.size_of(tg))).min(k)
    }

    /// The NAKs for the sequence numbers the window found due: a parity NAK per whole group repaired with
    /// parity, one selective NAK for the rest, queued in `naks`.
    pub(super) fn queue_naks(&mut self, now: Instant, sqns: Vec<u32>) {
        let on_demand = self.parity.as_ref().is_some_and(|p| p.params().on_demand);
        if !on_demand {
            self.naks.push_back(NakOut::Selective(sqns));
            return;
        }
        let lead = self.rxw.lead();
        // §11.5: selective NAKs in a partial group only when the source has no more data.
        let idle = self.source_out_of_data(now, lead);
        let (mut selective, mut deferred) = (Vec::new(), Vec::new());
        let mut groups: Vec<u32> = Vec::new();
        for &sqn in &sqns {
            let Some(p) = self.parity.as_ref() else {
                return;
            };
            let tg = p.group_of(sqn);
            let whole = crate::seq::le(tg.wrapping_add(p.size_of(tg) - 1), lead);
            if !p.covers(sqn) || (!whole && idle) {
                selective.push(sqn);
            } else if !whole {
                deferred.push(sqn);
            } else if !groups.contains(&tg) {
                groups.push(tg);
            }
        }
        if !deferred.is_empty() {
            let all = deferred.len() == sqns.len();
            self.rxw.defer_naks(now, &mut self.rng, &deferred, all);
        }
        for tg in groups {
            let Some(n) = self.parity.as_ref().map(|p| p.size_of(tg)) else {
                return;
            };
            if !self.parity.as_mut().is_some_and(|p| p.start_back_off(tg)) {
                self.parity_back_off(now, tg, n, &sqns);
                continue;
            }
            let missing = self.rxw.nak_sent_for_group(now, tg, n);
            if missing == 0 {
                continue;
            }
            let wanted = self.parity_wanted(tg, missing);
            self.naks
                .push_back(NakOut::Parity(tg.wrapping_add(wanted - 1)));
        }
        if !selective.is_empty() {
            self.naks.push_back(NakOut::Selective(selective));
        }
    }
}
