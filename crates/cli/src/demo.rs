//! `convoy demo`: one pgmcc session in the engine's in-memory harness, narrated.

use clap::Args;
use convoy_proto::cc::{CcEvent, ReductionCause};
use convoy_proto::harness::{Harness, HarnessConfig, PathConfig};
use convoy_proto::{Instant, SenderEvent};
use std::process::ExitCode;
use std::time::Duration;

/// Options of `convoy demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Number of receivers (the last one gets the lossy path).
    #[arg(long, default_value_t = 3)]
    receivers: usize,
    /// Random loss on the last receiver's path, in percent.
    #[arg(long, default_value_t = 5.0)]
    loss_percent: f64,
    /// One-way delay of every path, in milliseconds.
    #[arg(long, default_value_t = 20)]
    delay_ms: u64,
    /// Rate of every path in kbit/s (drop-tail queue of 30 packets).
    #[arg(long, default_value_t = 2000)]
    rate_kbps: u64,
    /// APDUs of 1400 bytes to send.
    #[arg(long, default_value_t = 10_000)]
    packets: u64,
    /// Seed for all random draws.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Run the demonstration; exit status 0 when every receiver got every byte in order.
pub fn run(args: &DemoArgs) -> ExitCode {
    if let Err(msg) = check_args(args) {
        eprintln!("{msg}");
        return ExitCode::from(2);
    }
    let config = HarnessConfig::new(args.seed, demo_paths(args), args.packets);
    let mut h = Harness::new(config);
    println!(
        "convoy demo: pgmcc, {} receivers on {} kbit/s paths of {} ms one-way delay; receiver {} loses {}% at random",
        args.receivers,
        args.rate_kbps,
        args.delay_ms,
        HarnessConfig::receiver_addr(args.receivers - 1),
        args.loss_percent
    );
    println!("sending {} APDUs of 1400 bytes …", args.packets);
    run_narrated(&mut h);
    print_sender_events(&h);
    let secs = h.now().as_secs_f64();
    let ok = print_receivers(&h, args, secs);
    let bytes = args.packets as f64 * 1400.0 * 8.0;
    println!(
        "session time {secs:.1} s, goodput {:.0} kbit/s",
        bytes / secs / 1000.0
    );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The options' ranges; the error is the message to print.
fn check_args(args: &DemoArgs) -> Result<(), String> {
    if args.receivers == 0 || args.receivers > 200 {
        return Err(format!(
            "convoy demo: --receivers must be between 1 and 200, got {}",
            args.receivers
        ));
    }
    if !(0.0..100.0).contains(&args.loss_percent) {
        return Err(format!(
            "convoy demo: --loss-percent must be in [0, 100), got {}",
            args.loss_percent
        ));
    }
    Ok(())
}

/// One path per receiver, all alike but the last one's random loss.
fn demo_paths(args: &DemoArgs) -> Vec<PathConfig> {
    (0..args.receivers)
        .map(|i| PathConfig {
            delay: Duration::from_millis(args.delay_ms),
            loss: if i + 1 == args.receivers {
                args.loss_percent / 100.0
            } else {
                0.0
            },
            rate_bps: Some(args.rate_kbps.max(1) * 1000),
            queue_packets: 30,
            upstream_loss: 0.0,
        })
        .collect()
}

/// Run the session to its end (at most ten simulated hours), printing the sender's state every 10 s.
fn run_narrated(h: &mut Harness) {
    let limit = Instant::from_secs_f64(36_000.0);
    let mut next_report = 10.0;
    while h.now() < limit && !(h.sender().is_closed() && h.all_delivered()) {
        h.run_until(Instant::from_secs_f64(next_report));
        let s = h.sender().cc_snapshot();
        println!(
            "  t={:>6.1}s  window {:>6.2}  tokens {:>6.2}  acker {:<10}  sent {:>6}  repairs {:>5}",
            h.now().as_secs_f64(),
            s.window.unwrap_or(0.0),
            s.tokens.unwrap_or(0.0),
            s.acker.map_or("none".to_string(), |a| a.to_string()),
            h.sender().stats().odata_packets,
            h.sender().stats().rdata_packets,
        );
        if h.sender().is_closed() {
            break;
        }
        next_report += 10.0;
    }
}

/// Print the acker changes, then how often the window was halved on loss and how many timeouts fired.
fn print_sender_events(h: &Harness) {
    println!("acker changes:");
    let mut reductions = 0;
    let mut timeouts = 0;
    for e in h.events() {
        match &e.event {
            SenderEvent::Cc(CcEvent::AckerChanged { from, to }) => println!(
                "  t={:>8.3}s  {} -> {}",
                e.t.as_secs_f64(),
                from.map_or("none".to_string(), |a| a.to_string()),
                to.map_or("none (election)".to_string(), |a| a.to_string())
            ),
            SenderEvent::Cc(CcEvent::Reduced {
                cause: ReductionCause::Loss,
                ..
            }) => reductions += 1,
            SenderEvent::Cc(CcEvent::Timeout { .. }) => timeouts += 1,
            _ => {}
        }
    }
    println!("window halvings on loss: {reductions}; timeouts: {timeouts}");
}

/// Print each receiver's outcome over the session's `secs`; whether every one got every APDU intact and in
/// order.
fn print_receivers(h: &Harness, args: &DemoArgs, secs: f64) -> bool {
    let mut ok = true;
    for i in 0..args.receivers {
        let o = h.outcome(i);
        let acker_share = h.acker_time(i).as_secs_f64() / secs.max(1e-9);
        let good = o.delivered == args.packets && o.mismatch.is_none();
        ok &= good;
        println!(
            "receiver {:<10} delivered {:>6}/{} APDUs {}  path drops {:>5}  acker {:>5.1}% of the time",
            HarnessConfig::receiver_addr(i).to_string(),
            o.delivered,
            args.packets,
            if good { "byte-exact, in order" } else { "INCOMPLETE" },
            o.path_drops,
            acker_share * 100.0
        );
    }
    ok
}
