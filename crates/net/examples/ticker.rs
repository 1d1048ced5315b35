//! A market-data ticker that adapts to what pgmcc grants (pgmcc paper §3.9, "tokens available").
//!
//! A feed of 200 symbols changes prices continuously. The source does not queue every change: it writes one
//! snapshot of the symbols that changed since the last one whenever the engine reports
//! `SenderEvent::TokensAvailable` (the controller would send now but the queue is empty). A fast path gets many
//! small, fresh snapshots; a slow one gets fewer, larger ones, and the data never goes stale in a queue.
//!
//! Runs on loopback in one process: the source on 127.0.0.1 and a receiver thread on 127.0.0.2.
//!
//! ```sh
//! cargo run --release -p convoy-net --example ticker -- [SECONDS] [RATE_MAX_KBIT]
//! ```
//! With a rate cap (e.g. `5 2000`), snapshots get larger and rarer; without, they follow the window.

use convoy_net::{GroupOptions, Interface, NetReceiver, NetSender};
use convoy_proto::cc::CcEvent;
use convoy_proto::{ReceiverEvent, SenderEvent};
use std::time::{Duration, Instant};

const SYMBOLS: usize = 200;

/// Prices in cents, with a cheap deterministic random walk.
struct Feed {
    prices: Vec<u32>,
    changed: Vec<bool>,
    state: u64,
}

impl Feed {
    fn new() -> Self {
        Feed {
            prices: (0..SYMBOLS as u32).map(|i| 10_000 + i * 37).collect(),
            changed: vec![false; SYMBOLS],
            state: 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// Let `n` price changes happen.
    fn tick(&mut self, n: usize) {
        for _ in 0..n {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            let i = (self.state % SYMBOLS as u64) as usize;
            let up = self.state & 0x100 != 0;
            self.prices[i] = if up {
                self.prices[i] + 1
            } else {
                self.prices[i].saturating_sub(1).max(1)
            };
            self.changed[i] = true;
        }
    }

    /// A snapshot of the changed symbols: (u16 symbol, u32 price) pairs.
    fn snapshot(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, c) in self.changed.iter_mut().enumerate() {
            if std::mem::take(c) {
                out.extend_from_slice(&(i as u16).to_be_bytes());
                out.extend_from_slice(&self.prices[i].to_be_bytes());
            }
        }
        out
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let seconds: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let rate_max_kbit: Option<u64> = args.get(2).and_then(|s| s.parse().ok());
    let group = format!(
        "239.255.77.{}:{}",
        std::process::id() % 200 + 1,
        40_000 + std::process::id() % 20_000
    );
    let group = group.parse().expect("group");

    let mut rx_opts = GroupOptions::new(group);
    rx_opts.interface = Interface::Addr("127.0.0.2".parse().expect("address"));
    let mut rx = NetReceiver::open(&rx_opts, |_| {})?;
    let receiver = std::thread::spawn(move || {
        let (mut snapshots, mut updates, mut prices) = (0u64, 0u64, vec![0u32; SYMBOLS]);
        while let Ok(Some(e)) = rx.recv(Duration::from_secs(2)) {
            match e {
                ReceiverEvent::Data(d) => {
                    snapshots += 1;
                    for pair in d.chunks_exact(6) {
                        let i = usize::from(u16::from_be_bytes([pair[0], pair[1]]));
                        prices[i] = u32::from_be_bytes([pair[2], pair[3], pair[4], pair[5]]);
                        updates += 1;
                    }
                }
                ReceiverEvent::Finished => break,
                _ => {}
            }
        }
        (snapshots, updates, prices)
    });

    let mut tx_opts = GroupOptions::new(group);
    tx_opts.interface = Interface::Addr("127.0.0.1".parse().expect("address"));
    tx_opts.ttl = 0;
    let mut tx = NetSender::open(&tx_opts, |c| {
        c.rate_max = rate_max_kbit.map(|k| k * 1000 / 8);
    })?;
    let mut feed = Feed::new();
    let start = Instant::now();
    let mut last = start;
    let (mut sent, mut bytes) = (0u64, 0u64);
    while start.elapsed().as_secs_f64() < seconds {
        tx.drive(Duration::from_millis(5))?;
        // The market moves at about 200,000 changes per second whatever the network does.
        let now = Instant::now();
        feed.tick((now - last).as_micros() as usize / 5);
        last = now;
        while let Some(e) = tx.poll_event() {
            match e {
                SenderEvent::TokensAvailable => {
                    let snap = feed.snapshot();
                    if !snap.is_empty() {
                        bytes += snap.len() as u64;
                        sent += 1;
                        tx.write(&snap)?;
                    }
                }
                SenderEvent::Cc(CcEvent::AckerChanged { to: Some(a), .. }) => {
                    println!("acker: {a}");
                }
                _ => {}
            }
        }
    }
    let final_prices = {
        // One last snapshot of everything, so the receiver ends with the feed's state.
        feed.changed.iter_mut().for_each(|c| *c = true);
        let snap = feed.snapshot();
        tx.write(&snap)?;
        feed.prices.clone()
    };
    tx.close(Duration::from_secs(10))?;
    let secs = start.elapsed().as_secs_f64();
    let (snapshots, updates, prices) = receiver.join().expect("receiver thread");
    println!(
        "source: {sent} snapshots, {:.0}/s, mean {:.0} bytes, {:.2} Mbit/s of updates",
        sent as f64 / secs,
        bytes as f64 / sent.max(1) as f64,
        bytes as f64 * 8.0 / secs / 1e6
    );
    println!(
        "receiver: {snapshots} snapshots, {updates} symbol updates, final state {}",
        if prices == final_prices {
            "matches the feed"
        } else {
            "differs"
        }
    );
    Ok(())
}
