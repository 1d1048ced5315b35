//! [`Receiver::take_in_order`] against [`Receiver::handle_parsed`]: two receivers hear the same packets from a
//! real source, over a path that loses, reorders and duplicates them; one offers each packet to the fast path
//! first. A third receiver at another address hears them too and sends its feedback, so that the source may
//! choose it (as acker, CLR or agent) and the two compared receivers then run as most receivers of a session
//! do. After every input both must send the same bytes, hold the same state and give the same events, the fast
//! path's delivery moved to the front. When the fast path says the packet left nothing to poll
//! ([`InOrder::DeliveredQuietly`]), the fast receiver must send nothing, give no other event and keep its
//! deadline.

use super::{InOrder, Receiver, ReceiverConfig, ReceiverEvent};
use crate::cc::CcConfig;
use crate::payload::Payload;
use crate::sender::{Sender, SenderConfig};
use crate::time::Instant;
use convoy_wire::DetachedRepr;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

const SOURCE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
const GROUP: IpAddr = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
const BYSTANDER: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3));

/// What happens next on the path or the clock.
#[derive(Clone, Debug)]
enum Step {
    /// The oldest packet on the path arrives.
    Deliver,
    /// The oldest packet on the path is lost.
    Drop,
    /// The two oldest packets swap places.
    Swap,
    /// The oldest packet arrives and stays on the path, to arrive again.
    Duplicate,
    /// Time passes by this many milliseconds; the source and the receivers run their timers.
    Advance(u16),
    /// The source closes the session (OPT_FIN on what follows).
    Close,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        12 => Just(Step::Deliver),
        2 => Just(Step::Drop),
        2 => Just(Step::Swap),
        1 => Just(Step::Duplicate),
        4 => (0u16..400).prop_map(Step::Advance),
        1 => (0u16..20).prop_map(Step::Advance),
        1 => prop_oneof![20 => Just(Step::Deliver), 1 => Just(Step::Close)],
    ]
}

/// A source, the path to the two receivers, and the receivers: `general` uses `handle_parsed` alone, `fast`
/// offers every packet to `take_in_order` first.
struct Bench {
    now: Instant,
    sender: Sender,
    path: VecDeque<Vec<u8>>,
    general: Receiver,
    fast: Receiver,
    /// Another receiver, at [`BYSTANDER`], whose feedback goes to the source.
    bystander: Receiver,
    /// Packets the fast path took.
    taken: usize,
    /// Packets it took quietly ([`InOrder::DeliveredQuietly`]).
    quiet: usize,
    /// Whether the compared receivers' packets reach the source (else the bystander's alone do).
    heard: bool,
}

impl Bench {
    fn new(cc: &CcConfig, initial_sqn: u32, apdus: &[usize], seed: u64) -> Self {
        let now = Instant::from_millis(1);
        let mut sender_config = SenderConfig::new(SOURCE, GROUP);
        sender_config.cc = cc.clone();
        sender_config.initial_sqn = initial_sqn;
        let mut sender = Sender::new(sender_config, now);
        for (i, &len) in apdus.iter().enumerate() {
            let _ = sender.write(&vec![i as u8; len]);
        }
        let mut config = ReceiverConfig::new(LOCAL, GROUP);
        config.cc = cc.clone();
        config.verify_checksums = false;
        let general = Receiver::new(config, seed);
        let fast = Receiver::new(general.config().clone(), seed);
        let mut bystander_config = general.config().clone();
        bystander_config.local_nla = BYSTANDER;
        let bystander = Receiver::new(bystander_config, seed.wrapping_add(1));
        let mut bench = Bench {
            now,
            sender,
            path: VecDeque::new(),
            general,
            fast,
            bystander,
            taken: 0,
            quiet: 0,
            heard: true,
        };
        bench.run_sender();
        bench
    }

    fn run_sender(&mut self) {
        if self.sender.poll_timeout().is_some_and(|t| t <= self.now) {
            self.sender.handle_timeout(self.now);
        }
        let mut buf = vec![0u8; 9000];
        while let Some(t) = self.sender.poll_transmit(self.now, &mut buf) {
            self.path.push_back(buf[..t.len].to_vec());
        }
        while self.sender.poll_event().is_some() {}
    }

    fn apply(&mut self, step: &Step) -> Result<(), TestCaseError> {
        match step {
            Step::Deliver | Step::Duplicate => {
                let Some(bytes) = self.path.pop_front() else {
                    return Ok(());
                };
                if matches!(step, Step::Duplicate) {
                    self.path.push_front(bytes.clone());
                }
                return self.deliver(bytes.into());
            }
            Step::Drop => {
                self.path.pop_front();
            }
            Step::Swap if self.path.len() >= 2 => self.path.swap(0, 1),
            Step::Swap => {}
            Step::Advance(ms) => {
                self.now += Duration::from_millis(u64::from(*ms));
                self.run_sender();
                for r in [&mut self.general, &mut self.fast, &mut self.bystander] {
                    if r.poll_timeout().is_some_and(|t| t <= self.now) {
                        r.handle_timeout(self.now);
                    }
                }
                self.run_bystander();
                return self.compare(None, None);
            }
            Step::Close => self.sender.close(self.now),
        }
        Ok(())
    }

    fn deliver(&mut self, datagram: Arc<[u8]>) -> Result<(), TestCaseError> {
        let parsed =
            DetachedRepr::parse_without_checksum(&datagram).expect("the source's packets parse");
        self.general
            .handle_parsed(self.now, SOURCE, &parsed, &datagram);
        self.bystander
            .handle_parsed(self.now, SOURCE, &parsed, &datagram);
        self.run_bystander();
        let deadline_before = self.fast.poll_timeout();
        let outcome = self.fast.take_in_order(self.now, &parsed, &datagram);
        match outcome {
            InOrder::NotTaken => self
                .fast
                .handle_parsed(self.now, SOURCE, &parsed, &datagram),
            InOrder::Delivered => self.taken += 1,
            InOrder::DeliveredQuietly => {
                self.taken += 1;
                self.quiet += 1;
            }
        }
        let at = parsed.payload_at;
        let taken = (outcome != InOrder::NotTaken)
            .then(|| Payload::shared(Arc::clone(&datagram), at..datagram.len()));
        let quiet = (outcome == InOrder::DeliveredQuietly).then_some(deadline_before);
        self.compare(taken, quiet)
    }

    /// The bystander's packets go to the source; its events are dropped.
    fn run_bystander(&mut self) {
        let mut buf = vec![0u8; 9000];
        while let Some(t) = self.bystander.poll_transmit(self.now, &mut buf) {
            self.sender
                .handle_datagram(self.now, BYSTANDER, &buf[..t.len]);
        }
        while self.bystander.poll_event().is_some() {}
    }

    /// Both receivers' packets, events and state; the general receiver's packets go to the source. `quiet`:
    /// the fast path took the packet quietly, the fast receiver's deadline before it.
    fn compare(
        &mut self,
        taken: Option<Payload>,
        quiet: Option<Option<Instant>>,
    ) -> Result<(), TestCaseError> {
        let now = self.now;
        let sent = |r: &mut Receiver| {
            let mut buf = vec![0u8; 9000];
            std::iter::from_fn(|| {
                r.poll_transmit(now, &mut buf)
                    .map(|t| buf[..t.len].to_vec())
            })
            .collect::<Vec<_>>()
        };
        let (general_sent, fast_sent) = (sent(&mut self.general), sent(&mut self.fast));
        prop_assert_eq!(&general_sent, &fast_sent);
        if let Some(deadline_before) = quiet {
            prop_assert!(fast_sent.is_empty(), "a quiet packet left packets to send");
            prop_assert_eq!(
                self.fast.poll_timeout(),
                deadline_before,
                "a quiet packet moved the deadline"
            );
        }
        for bytes in general_sent.iter().filter(|_| self.heard) {
            self.sender.handle_datagram(now, LOCAL, bytes);
        }
        let events = |r: &mut Receiver| std::iter::from_fn(|| r.poll_event()).collect::<Vec<_>>();
        let mut general_events = events(&mut self.general);
        let mut fast_events = events(&mut self.fast);
        if let Some(data) = taken {
            let at = general_events
                .iter()
                .position(|e| matches!(e, ReceiverEvent::Data(_)));
            prop_assert!(
                at.is_some(),
                "the fast path delivered what handle_parsed did not"
            );
            let moved = general_events.remove(at.unwrap_or(0));
            general_events.insert(0, moved);
            fast_events.insert(0, ReceiverEvent::Data(data));
        }
        if quiet.is_some() {
            prop_assert_eq!(
                fast_events.len(),
                1,
                "a quiet packet left events: {:?}",
                &fast_events
            );
        }
        prop_assert_eq!(general_events, fast_events);
        prop_assert_eq!(self.general.poll_timeout(), self.fast.poll_timeout());
        prop_assert_eq!(self.general.stats(), self.fast.stats());
        prop_assert_eq!(self.general.cc_snapshot(), self.fast.cc_snapshot());
        prop_assert_eq!(
            format!("{:?}", self.general.rxw),
            format!("{:?}", self.fast.rxw)
        );
        prop_assert_eq!(self.general.upstream, self.fast.upstream);
        prop_assert_eq!(self.general.finished, self.fast.finished);
        Ok(())
    }
}

fn cc() -> impl Strategy<Value = CcConfig> {
    prop::sample::select(CcConfig::NAMES)
        .prop_map(|n| CcConfig::by_name(n).expect("a registered scheme"))
}

proptest! {
    #![proptest_config(Config { cases: 96, failure_persistence: None, ..Config::default() })]

    /// The fast path leaves the receiver as the general one does, for every scheme, over a path that loses,
    /// reorders and duplicates, with fragmented APDUs among whole ones and sequence numbers that wrap.
    #[test]
    fn take_in_order_matches_handle_parsed_then_poll_event(
        cc in cc(),
        initial_sqn in prop_oneof![Just(u32::MAX - 20), any::<u32>()],
        apdus in prop::collection::vec(prop_oneof![6 => 0usize..1400, 1 => 1400usize..5000], 1..120),
        seed in any::<u64>(),
        steps in prop::collection::vec(step(), 0..400),
    ) {
        let mut bench = Bench::new(&cc, initial_sqn, &apdus, seed);
        for s in &steps {
            bench.apply(s)?;
        }
    }
}

/// On a clean path every whole ODATA takes the fast path (the source's first SPM started the session), and nearly
/// every packet leaves nothing to poll: only those that move a feedback timer, queue feedback or change a role
/// do not. The compared receivers run unchosen, as most receivers of a session do: the source hears the bystander
/// alone, so that it is the pgmcc acker (which ACKs every packet), the TFMCC CLR and the AIMD agent (which
/// report once per round trip, here once per packet).
#[test]
fn a_clean_path_takes_every_whole_packet_and_most_quietly() {
    for name in CcConfig::NAMES {
        let apdus = vec![1000; 200];
        let mut bench = Bench::new(&CcConfig::by_name(name).unwrap(), 7, &apdus, 1);
        bench.heard = false;
        for _ in 0..20_000 {
            let step = if bench.path.is_empty() {
                Step::Advance(10)
            } else {
                Step::Deliver
            };
            bench.apply(&step).unwrap();
            if bench.general.stats().odata == 200 {
                break;
            }
        }
        assert_eq!(bench.fast.stats().apdus, 200, "{name}");
        assert_eq!(bench.taken, 200, "{name}");
        assert!(
            !bench.fast.cc_snapshot().is_acker,
            "{name}: the bystander is chosen"
        );
        assert!(bench.quiet >= 150, "{name}: {} of 200 quiet", bench.quiet);
    }
}
