//! `convoy recv --keep`: a receiver that stays up, as udpcast's and UFTP's daemons do, taking transfer after
//! transfer into one directory until SIGTERM or SIGINT.
//!
//! Each transfer is a session of its own (a `convoy send` run); the receiver joins the next session it hears,
//! never one it has finished (`SinkSetup::refused_sessions`: a finished source lingers for a while, repeating its
//! FIN, and a receiver that joined it again would take it for a new transfer). Files land in `--out` by name
//! with resume's rules (docs/transfer.md): what is there and verified is not received again, a `NAME.partial`
//! left by an interrupted transfer is completed by the next that carries `NAME`. A signal ends the receive under
//! way as a silent source would (its verified blocks kept), and the command exits 0.

use crate::transfer_cmd::RecvArgs;
use crate::transfer_display::{write_json, Display};
use convoy_transfer::metrics::MetricsEndpoint;
use convoy_transfer::receive::{self, RecvOptions, RecvReport, STOPPED};
use convoy_transfer::setup::{self, SinkSetup};
use convoy_transfer::sink::Output;
use convoy_transfer::{exit, Observer};
use convoy_wire::Tsi;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Finished sessions remembered, so that none is joined again: far more than can linger at once (a source
/// lingers for seconds after its FIN).
const REMEMBERED_SESSIONS: usize = 64;

/// Run `convoy recv --keep` with the setup `convoy recv` resolved from the arguments.
pub fn run(args: &RecvArgs, output: Output, mut setup: SinkSetup) -> ExitCode {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(&stop)) {
            eprintln!("convoy recv: cannot handle signal {signal}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    }
    let group = args.common.group_options();
    let metrics = match args.common.serve_metrics() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("convoy recv: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut display = Display::new(args.common.quiet);
    display.announce_metrics(metrics.as_ref());
    let quiet = args.common.quiet;
    log(
        &mut display,
        quiet,
        &format!("receiving {} until a signal (--keep)", args.common.group),
    );
    let opts = RecvOptions {
        output,
        timeout: args.timeout,
        start_timeout: None,
        stop: Some(Arc::clone(&stop)),
        metrics: metrics.as_ref().map(MetricsEndpoint::page),
        ..RecvOptions::default()
    };
    let mut transfers = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let mut rx = match setup.open(&group) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("convoy recv: {e}");
                return ExitCode::from(exit::USAGE);
            }
        };
        let result = receive::receive(&mut rx, &opts, &mut display);
        let session = rx.receiver().tsi();
        match result {
            Ok(report) if report.transfer_id.is_none() && report.end == STOPPED => break,
            Ok(report) => {
                transfers += 1;
                log(
                    &mut display,
                    quiet,
                    &transfer_line(transfers, session, &report),
                );
                let json = setup::recv_stats(&rx, &report);
                if let Err(e) = write_json(&args.common.stats_json, &json) {
                    eprintln!("convoy recv: stats: {e}");
                }
            }
            Err(e) => log(&mut display, quiet, &format!("convoy recv: {e}")),
        }
        if let Some(tsi) = session {
            remember(&mut setup.refused_sessions, tsi);
        }
        // A session that went wrong at once (a socket error) is not retried in a tight loop.
        std::thread::sleep(Duration::from_millis(100));
    }
    display.finish();
    log(
        &mut display,
        quiet,
        &format!("stopped after {transfers} transfer(s)"),
    );
    ExitCode::SUCCESS
}

/// A line of the log on standard error: above the progress bar, or alone with `--quiet` (a service's log keeps
/// one line per transfer whatever the progress display).
fn log(display: &mut Display, quiet: bool, line: &str) {
    if quiet {
        eprintln!("{line}");
    } else {
        display.message(line);
    }
}

/// Keep `tsi` among the sessions not to join again, the oldest forgotten beyond [`REMEMBERED_SESSIONS`].
fn remember(sessions: &mut Vec<Tsi>, tsi: Tsi) {
    if !sessions.contains(&tsi) {
        sessions.push(tsi);
    }
    if sessions.len() > REMEMBERED_SESSIONS {
        sessions.remove(0);
    }
}

/// The line logged for one transfer: its number, session and id, what arrived and how it ended.
fn transfer_line(n: u64, session: Option<Tsi>, r: &RecvReport) -> String {
    let session = session.map_or_else(|| "-".to_string(), |t| t.to_string());
    let id = r
        .transfer_id
        .map_or_else(|| "-".to_string(), |i| format!("{i:08x}"));
    let incomplete: Vec<&str> = r
        .files
        .iter()
        .filter(|f| f.state != "complete")
        .map(|f| f.path.as_str())
        .collect();
    let mut line = format!(
        "transfer {n}: session {session}, id {id}: {} entries, {} bytes received, {} already here, {:.2} s: {}",
        r.files.len(),
        r.bytes,
        r.resumed_bytes,
        r.seconds,
        r.end
    );
    if !incomplete.is_empty() {
        line.push_str(&format!(" (incomplete: {})", incomplete.join(", ")));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_wire::Gsi;

    fn tsi(port: u16) -> Tsi {
        Tsi {
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            source_port: port,
        }
    }

    #[test]
    fn finished_sessions_are_remembered_up_to_the_bound() {
        let mut s = Vec::new();
        for p in 0..(REMEMBERED_SESSIONS as u16 + 3) {
            remember(&mut s, tsi(p));
            remember(&mut s, tsi(p));
        }
        assert_eq!(s.len(), REMEMBERED_SESSIONS);
        assert_eq!(s[0], tsi(3), "the oldest forgotten first");
    }
}
