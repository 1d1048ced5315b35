//! `convoy bench net`: the loopback benchmark of `convoy_transfer::loopback_bench`, printed as a table or JSON.

use clap::Args;
use std::process::ExitCode;

/// Options of `convoy bench net`.
#[derive(Args, Debug)]
pub struct BenchNetArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
}

/// Run `convoy bench net`.
pub fn run_net(args: &BenchNetArgs) -> ExitCode {
    let report = match convoy_transfer::loopback_bench::run(args.seconds, &mut |m| {
        eprintln!("convoy bench net: {m}")
    }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("convoy bench net: {e}");
            return ExitCode::from(1);
        }
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
        return ExitCode::SUCCESS;
    }
    let figures = &report.figures;
    println!(
        "{:<24} {:>9} {:>12} {:>8} {:>12} {:>10}",
        "what", "receivers", "packets/s", "Gbit/s", "CPU ns/pkt", "% of raw"
    );
    for f in figures {
        let raw = figures
            .iter()
            .find(|r| r.what == "raw sendmmsg" && r.receivers == f.receivers)
            .map_or(f64::NAN, |r| r.packets_per_s);
        println!(
            "{:<24} {:>9} {:>12.0} {:>8.2} {:>12.0} {:>9.0}%",
            f.what,
            f.receivers,
            f.packets_per_s,
            f.gbit_per_s,
            f.cpu_ns_per_packet,
            100.0 * f.packets_per_s / raw
        );
    }
    println!(
        "pacing: a fixed 20 Mbit/s session delivered {:.3} × its target rate",
        report.pacing_20mbit_achieved_ratio
    );
    println!("uftp: {}", report.uftp);
    let pps_with = |what: &str, receivers: usize| {
        figures
            .iter()
            .find(|f| f.what == what && f.receivers == receivers)
            .map(|f| f.packets_per_s)
    };
    for receivers in [1, 3] {
        let plain = pps_with("convoy pgmcc", receivers);
        let keyed = pps_with("convoy pgmcc keyed", receivers);
        let encrypted = pps_with("convoy pgmcc encrypted", receivers);
        if let (Some(p), Some(k), Some(e)) = (plain, keyed, encrypted) {
            println!(
                "keyed sessions, {receivers} receiver(s): keyed {:.0}%, encrypted {:.0}% of plain pgmcc's packets/s",
                100.0 * k / p,
                100.0 * e / p
            );
        }
    }
    let pps = |what: &str| pps_with(what, 1);
    if let (Some(u), Some(fx), Some(pg)) =
        (pps("uftp -R -1"), pps("convoy fixed"), pps("convoy pgmcc"))
    {
        println!(
            "1 receiver: convoy fixed {:.2} × UFTP, convoy pgmcc {:.2} × UFTP",
            fx / u,
            pg / u
        );
    }
    ExitCode::SUCCESS
}
