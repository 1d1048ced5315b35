//! Unit tests of [`TcpSender`], one per rule, each named after its source. Segments are 1000 bytes; helpers
//! speak in segment numbers (segment k = bytes [1000·k, 1000·k + 1000)).

use std::time::Duration;

use convoy_proto::Instant;

use super::{TcpConfig, TcpSegment, TcpSender, TcpVariant};

const MSS: u64 = 1000;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn cfg(variant: TcpVariant, iw: u32) -> TcpConfig {
    TcpConfig {
        variant,
        mss: MSS as u32,
        initial_window: iw,
        min_rto: ms(200),
        ..TcpConfig::default()
    }
}

/// A sender driven by hand.
struct H {
    s: TcpSender,
    now: Instant,
}

impl H {
    fn new(c: TcpConfig) -> Self {
        H {
            s: TcpSender::new(c, Instant::ZERO),
            now: Instant::ZERO,
        }
    }

    fn at(&mut self, millis: u64) {
        self.now = Instant::from_millis(millis);
    }

    /// Drains `poll_segment`, returning the segment numbers sent.
    fn sent(&mut self) -> Vec<u64> {
        let now = self.now;
        std::iter::from_fn(|| self.s.poll_segment(now))
            .map(|seg| {
                assert!(!seg.is_ack);
                seg.seq / MSS
            })
            .collect()
    }

    /// Cumulative ACK of segments below `k`, with SACK blocks in segment numbers; returns what is sent next.
    fn sack(&mut self, k: u64, blocks: &[(u64, u64)]) -> Vec<u64> {
        let bytes: Vec<_> = blocks.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect();
        self.ack_bytes(k * MSS, &bytes)
    }

    fn ack(&mut self, k: u64) -> Vec<u64> {
        self.sack(k, &[])
    }

    fn ack_bytes(&mut self, ack: u64, blocks: &[(u64, u64)]) -> Vec<u64> {
        self.s.on_ack(self.now, &TcpSegment::ack(ack, blocks));
        self.sent()
    }

    fn dupacks(&mut self, k: u64, n: usize) -> Vec<u64> {
        (0..n).flat_map(|_| self.ack(k)).collect()
    }

    fn timeout(&mut self) -> Vec<u64> {
        let d = self.s.poll_timeout().expect("timer running");
        self.now = d;
        self.s.handle_timeout(d);
        self.sent()
    }
}

fn range(a: u64, b: u64) -> Vec<u64> {
    (a..b).collect()
}

// ---- RFC 5681 §3.1: initial window, slow start, congestion avoidance ----

#[test]
fn rfc5681_3_1_initial_window() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 2));
    assert_eq!(h.sent(), vec![0, 1]);
    assert_eq!(h.sent(), Vec::<u64>::new());
    assert_eq!(h.s.cwnd(), 2 * MSS);
    assert_eq!(h.s.ssthresh(), u64::MAX);
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    assert_eq!(h.sent(), range(0, 4));
    assert_eq!(h.s.flight_size(), 4 * MSS);
}

#[test]
fn rfc5681_3_1_slow_start_eq2_byte_counting_limit_one_smss() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 2));
    h.sent();
    // One segment acknowledged: cwnd += SMSS, two more go out.
    assert_eq!(h.ack(1), vec![2, 3]);
    assert_eq!(h.s.cwnd(), 3 * MSS);
    // An ACK for two segments (as a delayed ACK would be) adds only min(N, SMSS) = SMSS (L = 1·SMSS).
    assert_eq!(h.ack(3), vec![4, 5, 6]);
    assert_eq!(h.s.cwnd(), 4 * MSS);
    // Half a segment acknowledged adds half a segment.
    h.ack_bytes(3 * MSS + 500, &[]);
    assert_eq!(h.s.cwnd(), 4 * MSS + 500);
}

#[test]
fn rfc5681_3_1_congestion_avoidance_eq3() {
    let mut h = H::new(TcpConfig {
        initial_ssthresh: 4 * MSS,
        ..cfg(TcpVariant::NewReno, 4)
    });
    h.sent();
    // cwnd = ssthresh: congestion avoidance, cwnd += SMSS·SMSS/cwnd.
    h.ack(1);
    assert_eq!(h.s.cwnd(), 4000 + 1_000_000 / 4000);
    h.ack(2);
    assert_eq!(h.s.cwnd(), 4250 + 1_000_000 / 4250);
    // About one SMSS per window (4 segments) of ACKs.
    h.ack(3);
    h.ack(4);
    assert!((4900..5000).contains(&h.s.cwnd()), "cwnd {}", h.s.cwnd());
}

#[test]
fn rfc5681_3_1_window_limited_not_application_limited() {
    // A perfect receiver ACKs every segment; after each ACK the sender fills min(cwnd, rwnd) to the last
    // whole segment.
    let mut h = H::new(TcpConfig {
        initial_ssthresh: 20 * MSS,
        ..cfg(TcpVariant::NewReno, 2)
    });
    let mut outstanding: std::collections::VecDeque<u64> = h.sent().into();
    for _ in 0..500 {
        let k = outstanding.pop_front().unwrap();
        outstanding.extend(h.ack(k + 1));
        let w = h.s.cwnd();
        assert!(h.s.flight_size() <= w);
        assert!(h.s.flight_size() + MSS > w, "window not filled");
        assert_eq!(h.s.flight_size(), outstanding.len() as u64 * MSS);
    }
    assert!(h.s.cwnd() > 25 * MSS, "grew through slow start and CA");
}

#[test]
fn max_cwnd_models_the_receiver_window() {
    let mut h = H::new(TcpConfig {
        max_cwnd: Some(3 * MSS),
        ..cfg(TcpVariant::NewReno, 10)
    });
    assert_eq!(h.sent(), vec![0, 1, 2]);
    for k in 1..20 {
        h.ack(k);
        assert!(h.s.flight_size() <= 3 * MSS);
    }
    assert!(
        h.s.cwnd() <= 10 * MSS,
        "cwnd does not grow beyond the receiver window"
    );
}

// ---- RFC 5681 §3.2: fast retransmit / fast recovery (Reno) ----

#[test]
fn rfc5681_3_2_fast_retransmit_on_third_duplicate_ack() {
    let mut h = H::new(cfg(TcpVariant::Reno, 10));
    assert_eq!(h.sent(), range(0, 10));
    // Segment 0 lost: duplicate ACKs from 1, 2 change nothing.
    assert!(h.dupacks(0, 2).is_empty());
    assert_eq!(h.s.cwnd(), 10 * MSS);
    assert!(!h.s.in_recovery());
    // The third: retransmit, ssthresh = FlightSize/2 (eq. 4), cwnd = ssthresh + 3·SMSS.
    assert_eq!(h.ack(0), vec![0]);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert_eq!(h.s.cwnd(), 8 * MSS);
    assert!(h.s.in_recovery());
    assert_eq!(h.s.stats().fast_retransmits, 1);
    assert_eq!(h.s.stats().retransmissions, 1);
}

#[test]
fn rfc5681_3_2_reno_inflation_and_deflation() {
    let mut h = H::new(cfg(TcpVariant::Reno, 10));
    h.sent();
    h.dupacks(0, 3);
    // Step 4: each further duplicate ACK inflates cwnd by SMSS; step 5: new data once it fits.
    assert!(h.dupacks(0, 2).is_empty());
    assert_eq!(h.s.cwnd(), 10 * MSS);
    assert_eq!(h.dupacks(0, 4), vec![10, 11, 12, 13]);
    assert_eq!(h.s.cwnd(), 14 * MSS);
    // Step 6: the next new ACK deflates to ssthresh and ends recovery.
    assert_eq!(h.ack(10), vec![14]);
    assert_eq!(h.s.cwnd(), 5 * MSS);
    assert!(!h.s.in_recovery());
}

#[test]
fn rfc5681_3_2_eq4_ssthresh_floor_two_smss() {
    let mut h = H::new(TcpConfig {
        dupack_threshold: 2,
        ..cfg(TcpVariant::Reno, 3)
    });
    h.sent();
    // (The inflated window also lets segment 3 out.)
    assert_eq!(h.dupacks(0, 2), vec![0, 3]);
    // FlightSize/2 = 1500 < 2·SMSS.
    assert_eq!(h.s.ssthresh(), 2 * MSS);
    // cwnd = ssthresh + DupThresh·SMSS.
    assert_eq!(h.s.cwnd(), 4 * MSS);
}

#[test]
fn rfc5681_3_2_reno_reduces_again_for_a_second_loss_in_the_window() {
    let mut h = H::new(cfg(TcpVariant::Reno, 10));
    h.sent();
    // Segments 0 and 5 lost; eight duplicate ACKs for 0.
    assert_eq!(h.dupacks(0, 8), vec![0, 10, 11, 12]);
    // The retransmitted 0 fills the first hole: Reno leaves recovery on this partial ACK.
    assert!(h.ack(5).is_empty());
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 5 * MSS);
    // 10, 11, 12 arrive: three duplicate ACKs for 5 — a second fast retransmit and reduction.
    assert_eq!(h.dupacks(5, 3), vec![5]);
    assert_eq!(h.s.stats().fast_retransmits, 2);
    assert_eq!(h.s.ssthresh(), 4 * MSS, "FlightSize (8 segments) / 2");
}

// ---- RFC 6582: NewReno ----

#[test]
fn rfc6582_3_2_partial_ack_retransmits_next_hole_and_deflates() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    assert_eq!(h.dupacks(0, 8), vec![0, 10, 11, 12]);
    assert_eq!(h.s.cwnd(), 13 * MSS);
    // Partial ACK (5 < recover = 10): retransmit 5 at once; cwnd = 13 − 5 + 1 = 9 segments; flight is 8, so one
    // new segment goes out. Recovery continues, no second reduction.
    assert_eq!(h.ack(5), vec![5, 13]);
    assert_eq!(h.s.cwnd(), 9 * MSS);
    assert!(h.s.in_recovery());
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert_eq!(h.s.stats().fast_retransmits, 1);
    // A partial ACK of less than one SMSS deflates without adding SMSS back.
    h.ack_bytes(5 * MSS + 500, &[]);
    assert_eq!(h.s.cwnd(), 9 * MSS - 500);
}

#[test]
fn rfc6582_3_2_full_ack_sets_cwnd_option_1() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    assert_eq!(h.dupacks(0, 8), vec![0, 10, 11, 12]);
    assert_eq!(h.ack(5), vec![5, 13]);
    // Full ACK of everything outstanding at entry (recover = 10): FlightSize = 4 segments (10..13) →
    // cwnd = min(ssthresh = 5, 4 + 1) segments.
    h.ack(10);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 5 * MSS);
    // With little outstanding, cwnd = FlightSize + SMSS < ssthresh: no burst.
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    h.dupacks(0, 3);
    h.ack(10);
    assert_eq!(h.s.cwnd(), 2 * MSS, "min(ssthresh, max(0, SMSS) + SMSS)");
}

#[test]
fn rfc6582_3_2_step1_no_fast_retransmit_below_recover() {
    for (variant, expect_fr) in [(TcpVariant::NewReno, false), (TcpVariant::Reno, true)] {
        let mut h = H::new(cfg(variant, 8));
        h.sent();
        // Segments 0 and 4 lost; the timer fires.
        assert_eq!(h.timeout(), vec![0]);
        // 0 fills the first hole (1, 2, 3 held): cwnd 2, go-back-N resends 4 and 5.
        assert_eq!(h.ack(4), vec![4, 5]);
        // The resent 4 is lost again; duplicates of 5, 6, 7 produce duplicate ACKs below recover = 8.
        let out = h.dupacks(4, 3);
        assert_eq!(
            h.s.stats().fast_retransmits,
            u64::from(expect_fr),
            "{variant:?}"
        );
        assert_eq!(out.contains(&4), expect_fr, "{variant:?}");
    }
}

#[test]
fn rfc6582_4_duplicate_acks_at_recover_after_timeout_do_not_trigger() {
    // "covers more than recover": ack − 1 > recover. After a timeout at HighData = 4 segments, duplicate ACKs
    // for exactly 4 may be go-back-N duplicates; NewReno waits for an ACK beyond.
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    assert_eq!(h.timeout(), vec![0]);
    assert_eq!(h.ack(4), vec![4, 5]);
    h.dupacks(4, 3);
    assert_eq!(h.s.stats().fast_retransmits, 0);
    // Once an ACK goes beyond recover, a new loss is recovered normally.
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    h.timeout();
    h.ack(4);
    assert_eq!(h.ack(5), vec![6]); // 5 is lost
    assert_eq!(h.dupacks(5, 3)[0], 5);
    assert_eq!(h.s.stats().fast_retransmits, 1);
}

#[test]
fn rfc6582_4_impatient_timer_restarts_on_first_partial_ack_only() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    // Losses at 0, 3 and 6.
    h.dupacks(0, 7);
    h.at(50);
    h.ack(3);
    let after_first = h.s.poll_timeout().unwrap();
    assert_eq!(after_first, Instant::from_millis(50) + h.s.rto());
    h.at(100);
    h.ack(6);
    assert_eq!(h.s.poll_timeout(), Some(after_first), "second partial ACK");
}

// ---- RFC 6298: retransmission timer ----

#[test]
fn rfc6298_5_1_to_5_3_timer_start_restart_stop() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 2));
    assert_eq!(h.s.poll_timeout(), None);
    h.sent();
    // §2.1 + §5.1: started with the initial RTO when data is sent.
    assert_eq!(h.s.poll_timeout(), Some(Instant::from_millis(1000)));
    // A sample of 100 ms: RTO = 100 + 4·50 = 300 ms; §5.3 restarts the timer on new data acknowledged.
    h.at(100);
    h.ack(1);
    assert_eq!(h.s.srtt(), Some(ms(100)));
    assert_eq!(h.s.rto(), ms(300));
    assert_eq!(h.s.poll_timeout(), Some(Instant::from_millis(400)));
    assert_eq!(h.s.stats().rtt_samples, 1);
    // §5.2: everything acknowledged stops it.
    h.s.stop();
    h.at(150);
    assert!(h.ack(4).is_empty());
    assert_eq!(h.s.poll_timeout(), None);
}

#[test]
fn rfc6298_2_3_rto_adds_the_clock_granularity() {
    // Twenty RTT samples of exactly 250 ms: RTTVAR decays below a millisecond, so RTO = SRTT + G.
    let rto_after = |g: Duration| {
        let mut h = H::new(TcpConfig {
            clock_granularity: g,
            max_cwnd: Some(MSS),
            ..cfg(TcpVariant::Sack, 1)
        });
        assert_eq!(h.sent(), vec![0]);
        for k in 1..=20 {
            h.at(250 * k);
            assert_eq!(h.ack(k), vec![k]);
        }
        h.s.rto()
    };
    let fine = rto_after(ms(1));
    assert!(fine > ms(250) && fine < ms(255), "G = 1 ms: {fine:?}");
    // ns-2's 100 ms tick: the timer never comes closer to SRTT than one tick.
    assert_eq!(rto_after(ms(100)), ms(350));
}

#[test]
fn rfc6298_2_4_min_rto() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 2));
    h.sent();
    h.at(10);
    h.ack(1);
    assert_eq!(h.s.rto(), ms(200), "10 + 4·5 ms rounded up to min_rto");
}

#[test]
fn rfc6298_5_5_and_rfc5681_3_1_timeout_backs_off_and_collapses_cwnd() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    h.s.handle_timeout(Instant::from_millis(999)); // early: ignored
    assert_eq!(h.s.stats().timeouts, 0);
    // §5.4: retransmit the earliest unacknowledged segment; cwnd = LW = 1 SMSS; ssthresh = FlightSize/2.
    assert_eq!(h.timeout(), vec![0]);
    assert_eq!(h.s.stats().timeouts, 1);
    assert_eq!(h.s.cwnd(), MSS);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    // §5.5: RTO doubled; §5.6: timer restarted with it.
    assert_eq!(h.s.rto(), ms(2000));
    assert_eq!(h.s.poll_timeout(), Some(Instant::from_millis(3000)));
    // Second expiry for the same segment: ssthresh held (RFC 5681 §3.1), RTO doubled again.
    assert_eq!(h.timeout(), vec![0]);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert_eq!(h.s.rto(), ms(4000));
    // Capped at max_rto (§2.5).
    for _ in 0..10 {
        h.timeout();
    }
    assert_eq!(h.s.rto(), Duration::from_secs(60));
}

#[test]
fn rfc5681_3_1_timeout_during_recovery_keeps_the_recovery_ssthresh() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent();
    // Fast retransmit: ssthresh 5; the inflated window sends 10..13, so FlightSize reaches 14 segments.
    assert_eq!(h.dupacks(0, 9), vec![0, 10, 11, 12, 13]);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert_eq!(h.s.flight_size(), 14 * MSS);
    // The retransmission is lost too. Eq. 4 would give 7 segments; "no more than" eq. 4 allows keeping 5.
    assert_eq!(h.timeout(), vec![0]);
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), MSS);
}

#[test]
fn rfc6298_timeout_go_back_n_resends_from_snd_una() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    assert_eq!(h.timeout(), vec![0]);
    assert_eq!(h.s.flight_size(), MSS, "1..3 presumed lost");
    // Slow start from one segment, resending 1, 2, 3 in order as the window opens, then new data.
    // (ssthresh = 2 segments: congestion avoidance from cwnd = 2.)
    assert_eq!(h.ack(1), vec![1, 2]);
    assert_eq!(h.ack(2), vec![3]);
    assert_eq!(h.s.stats().retransmissions, 4);
    assert_eq!(h.ack(4), vec![4, 5]);
    assert_eq!(h.s.stats().retransmissions, 4);
    // An ACK beyond snd_nxt (the originals arrived after all) moves snd_nxt forward: no pointless resends.
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    h.timeout();
    assert_eq!(h.ack(4), vec![4, 5]);
    assert_eq!(h.s.stats().retransmissions, 1);
}

#[test]
fn rfc6298_3_karn_no_sample_from_retransmitted_segment() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 2));
    h.sent();
    h.timeout(); // at 1 s, resends 0; RTO now 2 s
    h.at(1100);
    let sent = h.ack(2); // ambiguous: acknowledges the retransmission
    assert_eq!(h.s.stats().rtt_samples, 0);
    assert_eq!(h.s.srtt(), None);
    assert_eq!(
        h.s.rto(),
        ms(2000),
        "backed-off RTO kept until a valid sample"
    );
    // New data, sent once, is timed.
    assert_eq!(sent, vec![2, 3]);
    h.at(1180);
    h.ack(sent[0] + 1);
    assert_eq!(h.s.srtt(), Some(ms(80)));
    assert_eq!(h.s.rto(), ms(240));
}

#[test]
fn rfc6298_3_karn_fast_retransmit_abandons_measurement() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 10));
    h.sent(); // segment 0 timed
    h.dupacks(0, 3); // retransmits 0
    h.at(500);
    h.ack(10);
    assert_eq!(h.s.stats().rtt_samples, 0);
}

// ---- RFC 6675: SACK loss recovery ----

#[test]
fn rfc6675_5_entry_on_dupthresh_sack_dupacks() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    assert!(h.sack(0, &[(1, 2)]).is_empty());
    assert!(h.sack(0, &[(1, 3)]).is_empty());
    // (4.2) ssthresh = cwnd = FlightSize/2; (4.3) retransmit HighACK's segment.
    assert_eq!(h.sack(0, &[(1, 4)]), vec![0]);
    assert!(h.s.in_recovery());
    assert_eq!(h.s.ssthresh(), 5 * MSS);
    assert_eq!(h.s.cwnd(), 5 * MSS);
    // (4.4) pipe: 4..9 un-SACKed and not lost (6) + the retransmission of 0 (1) = 7 segments.
    assert_eq!(h.s.in_flight(), 7 * MSS);
    // A repeated SACK block is not a duplicate ACK and changes nothing.
    assert!(h.sack(0, &[(1, 4)]).is_empty());
    // As SACKs for 4..8 arrive pipe falls; new data (NextSeg rule 2) once cwnd − pipe ≥ SMSS.
    assert!(h.sack(0, &[(1, 5)]).is_empty());
    assert!(h.sack(0, &[(1, 6)]).is_empty());
    assert_eq!(h.sack(0, &[(1, 7)]), vec![10]);
    assert_eq!(h.sack(0, &[(1, 8)]), vec![11]);
    assert_eq!(h.s.stats().fast_retransmits, 1);
}

#[test]
fn rfc6675_5_entry_on_is_lost_before_dupthresh() {
    // One ACK SACKing three segments: DupAcks = 1 but IsLost(HighACK) (step 2).
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    assert_eq!(h.sack(0, &[(1, 4)]), vec![0]);
    assert!(h.s.in_recovery());
}

#[test]
fn rfc6675_5_step1_dupthresh_with_small_sacked_pieces() {
    // SACKed data too small for IsLost: the DupAcks ≥ DupThresh test alone triggers recovery.
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    h.ack_bytes(0, &[(1000, 1100)]);
    h.ack_bytes(0, &[(1000, 1200)]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.ack_bytes(0, &[(1000, 1300)]), vec![0]);
    assert!(h.s.in_recovery());
}

#[test]
fn rfc6675_2_cumulative_ack_with_new_sack_counts_as_duplicate() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    h.ack_bytes(0, &[(1000, 1100)]); // DupAcks 1
    h.ack_bytes(500, &[(1000, 1200)]); // cumulative: reset to 0, new SACK: 1
    h.ack_bytes(500, &[(1000, 1300)]); // 2
    assert!(!h.s.in_recovery());
    h.ack_bytes(500, &[(1000, 1400)]); // 3
    assert!(h.s.in_recovery());
}

#[test]
fn rfc6675_4_next_seg_rule1_repairs_several_holes_per_rtt() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    // 0, 2 and 4 lost; one ACK reports the rest.
    let out = h.sack(0, &[(5, 10), (3, 4), (1, 2)]);
    // 0 (fast retransmit), then rule 1: 2 and 4 (IsLost, above HighRxt), then rule 2: new data 10, 11 until
    // pipe = cwnd = 5 segments.
    assert_eq!(out, vec![0, 2, 4, 10, 11]);
    assert_eq!(h.s.in_flight(), 5 * MSS);
    // NewReno needs one RTT per hole instead.
    let mut n = H::new(cfg(TcpVariant::NewReno, 10));
    n.sent();
    assert_eq!(n.dupacks(0, 7), vec![0, 10, 11]);
    assert_eq!(n.s.stats().retransmissions, 1);
}

#[test]
fn rfc6675_4_next_seg_rule3_when_no_new_data() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.s.set_bytes_to_send(Some(10 * MSS));
    h.sent();
    // 0 and 8 lost; 8 has only one SACKed segment above it, so it is not IsLost, but with no new data to
    // send, rule 3 retransmits it.
    assert_eq!(h.sack(0, &[(9, 10), (1, 8)]), vec![0, 8]);
}

#[test]
fn rfc6675_5_a_exit_at_recovery_point_keeps_scoreboard() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    // Sends 0, 2, 4, 10, 11.
    h.sack(0, &[(5, 10), (3, 4), (1, 2)]);
    // 0 arrived (partial ACK): pipe = 2 retransmissions + 10 and 11 = 4 segments, room for 12.
    assert_eq!(h.sack(2, &[(3, 4), (5, 10)]), vec![12]);
    assert!(h.s.in_recovery());
    // 10 lost; 11 SACKed. The ACK for 10 (RecoveryPoint) ends recovery; cwnd stays at ssthresh; FlightSize
    // is 3 segments (10..12), so 13 and 14 go out.
    assert_eq!(h.sack(10, &[(11, 12)]), vec![13, 14]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.cwnd(), 5 * MSS);
    // The SACK for 11 is remembered: two more SACKed segments start recovery for 10 (IsLost).
    h.sack(10, &[(11, 13)]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.sack(10, &[(11, 14)]), vec![10]);
    assert_eq!(h.s.stats().fast_retransmits, 2);
}

#[test]
fn rfc6675_5_1_timeout_keeps_scoreboard_and_skips_sacked_data() {
    let mut h = H::new(cfg(TcpVariant::Sack, 10));
    h.sent();
    // 0 and 1 lost, 2 and 3 SACKed, then silence.
    h.sack(0, &[(2, 3)]);
    h.sack(0, &[(2, 4)]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.timeout(), vec![0]);
    // cwnd 2: go-back-N resends 1, skips the SACKed 2 and 3, resends 4; only un-SACKed bytes count.
    assert_eq!(h.sack(1, &[(2, 4)]), vec![1, 4]);
    assert_eq!(h.s.in_flight(), 2 * MSS);
    // No new recovery below RecoveryPoint (10): 4 lost again, 5, 6, 7 reported.
    h.sack(2, &[(5, 6)]);
    h.sack(4, &[(5, 7)]);
    h.sack(4, &[(5, 8)]);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats().fast_retransmits, 0);
}

// ---- Application limits, robustness ----

#[test]
fn bytes_to_send_limit_and_short_last_segment() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.s.set_bytes_to_send(Some(2500));
    let mut lens = vec![];
    while let Some(seg) = h.s.poll_segment(h.now) {
        lens.push(seg.len);
    }
    assert_eq!(lens, vec![1000, 1000, 500]);
    h.ack_bytes(2500, &[]);
    assert_eq!(h.s.poll_timeout(), None);
    assert_eq!(h.s.stats().bytes_sent, 2500);
    assert_eq!(h.s.stats().highest_acked, 2500);
    // Offering more resumes.
    h.s.set_bytes_to_send(None);
    assert!(!h.sent().is_empty());
}

#[test]
fn stop_ends_new_data_but_recovers_outstanding() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    h.s.stop();
    assert!(h.ack(1).is_empty(), "no new data after stop");
    // 1 lost: the timer still recovers it.
    assert_eq!(h.timeout(), vec![1]);
    h.ack(4);
    assert_eq!(h.s.poll_timeout(), None);
    assert_eq!(h.s.snd_max(), 4 * MSS);
}

#[test]
fn invalid_acks_are_ignored() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    h.ack(2);
    let cwnd = h.s.cwnd();
    h.ack(50); // acknowledges data never sent
    h.ack(1); // old
    h.s.on_ack(h.now, &TcpSegment::data(0, 1000)); // not an ACK
    assert_eq!(h.s.snd_una(), 2 * MSS);
    assert_eq!(h.s.cwnd(), cwnd);
    assert!(!h.s.in_recovery());
}

#[test]
fn stats_count_bytes_and_retransmissions() {
    let mut h = H::new(cfg(TcpVariant::NewReno, 4));
    h.sent();
    h.timeout();
    let s = h.s.stats();
    assert_eq!(s.segments_sent, 5);
    assert_eq!(s.bytes_sent, 5 * MSS);
    assert_eq!(s.retransmissions, 1);
    assert_eq!(s.bytes_retransmitted, MSS);
    assert_eq!(s.timeouts, 1);
    assert_eq!(s.highest_acked, 0);
}
