//! The fixed-rate baseline: original data leaves at a configured rate whatever the receivers say.
//!
//! This is how a plain PGM source behaves (pgmcc paper §3.1: "PGM sources typically transmit at a pre-set data
//! rate"). It ignores all feedback; its receiver half only measures loss for statistics.

use super::pacer::RatePacer;
use super::{
    CcSnapshot, OdataOutcome, Permit, ReceiverCcSnapshot, ReceiverController, Scheme,
    SenderController,
};
use crate::loss_filter::LossFilter;
use crate::seq;
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use rand_core::RngCore;
use std::net::IpAddr;
use std::time::Duration;

/// Parameters of the fixed-rate controller.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedConfig {
    /// Data rate in bytes per second, counting whole PGM packets as the session emits them.
    pub rate_bytes_per_s: u64,
    /// How far the pacer may fall behind and then catch up in a burst.
    pub burst: Duration,
}

impl Default for FixedConfig {
    fn default() -> Self {
        FixedConfig {
            rate_bytes_per_s: 125_000,
            burst: Duration::from_millis(10),
        }
    }
}

/// Sender half: a pacer that spaces packets by `len / rate`.
#[derive(Debug)]
pub struct FixedSender {
    config: FixedConfig,
    pacer: RatePacer,
}

impl FixedSender {
    /// A pacer that may send at once.
    pub fn new(config: FixedConfig, now: Instant) -> Self {
        FixedSender {
            config,
            pacer: RatePacer::new(now),
        }
    }

    fn spacing(&self, len: usize) -> Duration {
        let rate = self.config.rate_bytes_per_s.max(1) as u128;
        Duration::from_nanos(u64::try_from(len as u128 * 1_000_000_000 / rate).unwrap_or(u64::MAX))
    }
}

impl SenderController for FixedSender {
    fn permit(&self, now: Instant) -> Permit {
        self.pacer.permit(now, Duration::ZERO)
    }

    /// The pacer lags by at most `burst`, so an idle period does not bank unlimited credit.
    fn on_data_sent(&mut self, now: Instant, _sqn: u32, len: usize, _options: &mut OptionsRepr) {
        self.pacer.sent(now, self.spacing(len), self.config.burst);
    }

    /// A repair takes its share of the fixed rate, as original data does.
    fn on_repair_sent(&mut self, now: Instant, len: usize) {
        self.pacer.sent(now, self.spacing(len), self.config.burst);
    }

    fn snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            rate_bps: Some(self.config.rate_bytes_per_s as f64),
            ..CcSnapshot::default()
        }
    }
}

/// Receiver half: measures loss, sends nothing.
#[derive(Debug, Default)]
pub struct FixedReceiver {
    filter: LossFilter,
    rx_max: Option<u32>,
}

impl FixedReceiver {
    /// Advance RX_MAX to `sqn`, counting the gap lost and `sqn` itself as `received` says.
    fn record(&mut self, sqn: u32, received: bool) {
        let gap = match self.rx_max {
            Some(max) if seq::le(sqn, max) => return,
            Some(max) => seq::diff(sqn, max).min(1 << 16),
            None => 1,
        };
        for _ in 1..gap {
            self.filter.record_lost();
        }
        if received {
            self.filter.record_received();
        } else {
            self.filter.record_lost();
        }
        self.rx_max = Some(sqn);
    }
}

impl ReceiverController for FixedReceiver {
    /// Always [`OdataOutcome::Quiet`]: this half sends nothing, notifies nothing and has no deadline.
    fn on_odata(
        &mut self,
        _now: Instant,
        _rng: &mut dyn RngCore,
        sqn: u32,
        _len: usize,
        _options: &OptionsRepr,
    ) -> OdataOutcome {
        self.record(sqn, true);
        OdataOutcome::Quiet
    }

    fn on_odata_congested(
        &mut self,
        _now: Instant,
        _rng: &mut dyn RngCore,
        sqn: u32,
        _len: usize,
        _options: &OptionsRepr,
    ) {
        self.record(sqn, false);
    }

    fn snapshot(&self) -> ReceiverCcSnapshot {
        ReceiverCcSnapshot {
            loss: self.filter.value(),
            rx_max: self.rx_max,
            ..Default::default()
        }
    }
}

impl Scheme for FixedConfig {
    const NAME: &'static str = "fixed";
    /// The baseline: its rate follows nothing.
    const CONTROLS_CONGESTION: bool = false;

    fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
        Box::new(FixedSender::new(self.clone(), now))
    }

    fn build_receiver(&self, _local: IpAddr) -> Box<dyn ReceiverController> {
        Box::new(FixedReceiver::default())
    }

    /// A plain PGM source (pgmcc paper §3.1) puts no congestion-control option on its data.
    fn recognises(odata: &OptionsRepr) -> bool {
        odata.cc.iter().next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paces_at_the_configured_rate() {
        let mut s = FixedSender::new(
            FixedConfig {
                rate_bytes_per_s: 1_000_000,
                burst: Duration::ZERO,
            },
            Instant::ZERO,
        );
        let mut now = Instant::ZERO;
        let mut sent = 0;
        let mut opts = OptionsRepr::default();
        while now < Instant::from_millis(1000) {
            match s.permit(now) {
                Permit::Now => {
                    s.on_data_sent(now, sent, 1000, &mut opts);
                    sent += 1;
                }
                Permit::At(t) => now = t,
                Permit::Blocked => unreachable!(),
            }
        }
        assert_eq!(sent, 1000);
    }
}
