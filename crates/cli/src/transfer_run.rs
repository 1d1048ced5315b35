//! Running `convoy send` and `convoy recv`: the transfer's setup from the arguments (usage errors before the
//! group is joined), the transfer with a progress bar, the summary on standard error and `--stats-json`.

use crate::raw_cmd;
use crate::transfer_cmd::{cc_config, resolve_repairs, CcChoice, ParityChoice, RecvArgs, SendArgs};
use crate::transfer_display::{write_json, Display};
use convoy_proto::cc::pgmcc::StartUp;
use convoy_proto::cc::CcConfig;
use convoy_proto::sender::{MinRate, SenderStats};
use convoy_transfer::metrics::MetricsEndpoint;
use convoy_transfer::receive::{self, RecvOptions, RecvReport};
use convoy_transfer::setup::{self, SinkSetup, SourceSetup};
use convoy_transfer::sink::Output;
use convoy_transfer::source::{self, SendInput, SendOptions, SendReport};
use convoy_transfer::{exit, Observer};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Every input can be read: checked before the session opens, so that a typo fails at once, naming the path,
/// before anything is announced or sent.
fn check_inputs(paths: &[PathBuf]) -> Result<(), String> {
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let readable = if meta.is_dir() {
            std::fs::read_dir(p).map(|_| ())
        } else {
            std::fs::File::open(p).map(|_| ())
        };
        readable.map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// The output directory exists (created if missing) and takes a file: checked before joining the group, so
/// that a receiver that could not store anything fails at once instead of when data arrives.
fn check_output_dir(dir: &std::path::Path) -> Result<(), String> {
    let named = |e: std::io::Error| format!("--out {}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(named)?;
    let probe = dir.join(format!(".convoy-write-check-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(named)?;
    std::fs::remove_file(&probe).map_err(named)
}

/// Run `convoy send`.
pub fn run_send(args: &SendArgs) -> ExitCode {
    let (input, source_setup) = match send_setup(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("convoy send: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut g = args.common.group_options();
    g.ttl = args.ttl;
    g.loopback = !args.no_loopback;
    let mut tx = match source_setup.open(&g) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("convoy send: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    if args.raw {
        let code = raw_cmd::send(
            &mut tx,
            args.apdu_size as usize,
            args.finish_timeout,
            args.common.quiet,
        );
        return finish_trace("send", tx.finish_packet_trace(), code);
    }
    let metrics = match args.common.serve_metrics() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("convoy send: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut display = Display::new(args.common.quiet);
    display.announce_metrics(metrics.as_ref());
    display.message(&format!(
        "sending to {} via {} as {} ({})",
        args.common.group,
        tx.interface().name.as_deref().unwrap_or("default"),
        tx.interface().local,
        source_setup.cc.name()
    ));
    let opts = SendOptions {
        wait_receivers: args.wait_receivers,
        wait: args.wait,
        finish_timeout: args.finish_timeout,
        close_timeout: args.finish_timeout,
        resume: args.resume,
        resume_wait: args.resume_wait,
        status_file: args.status_file.clone(),
        metrics: metrics.as_ref().map(MetricsEndpoint::page),
    };
    let result = source::send(&mut tx, &input, &opts, &mut display);
    display.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("convoy send: {e}");
            return finish_trace("send", tx.finish_packet_trace(), ExitCode::from(e.code));
        }
    };
    let code = setup::send_exit_code(&report, args.wait_receivers, args.fire_and_forget);
    print_send_report(args, tx.sender().stats(), &report);
    let json = setup::send_stats(&tx, &report, code);
    if let Err(e) = write_json(&args.common.stats_json, &json) {
        eprintln!("convoy send: stats: {e}");
    }
    finish_trace("send", tx.finish_packet_trace(), ExitCode::from(code))
}

/// What `convoy send` sends and how, from its arguments: a usage error says what is wrong, before the group is
/// joined.
fn send_setup(args: &SendArgs) -> Result<(SendInput, SourceSetup), String> {
    let input = if args.paths.len() == 1 && args.paths[0] == "-" {
        SendInput::Stdin
    } else if args.paths.iter().any(|p| p == "-") {
        return Err("`-` (standard input) cannot be mixed with files".into());
    } else {
        SendInput::Paths(args.paths.iter().map(PathBuf::from).collect())
    };
    if args.cc == CcChoice::Auto {
        return Err(format!(
            "--cc auto is for receivers; choose {}",
            CcConfig::NAMES.join(", ")
        ));
    }
    if let SendInput::Paths(paths) = &input {
        check_inputs(paths)?;
    }
    if args.raw {
        raw_cmd::check_send(&input, args.apdu_size)?;
        if matches!(args.parity, ParityChoice::Given(Some(_))) {
            return Err(
                "--parity with --raw: receivers that are not Convoy's do not decode Convoy's parity, and \
                 OpenPGM 5.3 aborts on it (docs/interop.md); send raw APDUs without --parity"
                    .into(),
            );
        }
    }
    let auth = args
        .common
        .auth(!args.no_encrypt)
        .map_err(|e| e.to_string())?;
    let cc = cc_config(&args.cc, args.rate, args.rto_min, args.pgmcc_start);
    if args.min_rate.is_some() && !cc.controls_congestion() {
        return Err(format!(
            "--min-rate judges receivers by the rate a congestion controller credits them with; --cc {} has none \
             (choose pgmcc, tfmcc or aimd)",
            cc.name()
        ));
    }
    let parity = args.parity.resolve(&input, args.raw);
    let setup = SourceSetup {
        auth,
        cc,
        rate_max_bps: args.rate_max,
        repair_rate_max_bps: args.repair_rate_max,
        txw_packets: args.txw_packets,
        repair_pacing: resolve_repairs(args.repairs, parity.is_some()),
        feedback_timeout: (!args.feedback_timeout.is_zero()).then_some(args.feedback_timeout),
        packet_trace: args.common.packet_trace.clone(),
        parity,
        min_rate: args.min_rate.map(|bps| MinRate {
            rate_bps: bps as f64 / 8.0,
            grace: args.min_rate_grace,
        }),
    };
    Ok((input, setup))
}

/// The end of `convoy send` on standard error: what was sent, and which receivers did not finish.
fn print_send_report(args: &SendArgs, s: &SenderStats, report: &SendReport) {
    if !args.common.quiet {
        let mbit = report.bytes as f64 * 8.0 / report.seconds.max(1e-9) / 1e6;
        let parity = match s.parity_packets {
            0 => String::new(),
            n => format!(" ({n} parity)"),
        };
        eprintln!(
            "sent {} bytes in {} files in {:.2} s ({mbit:.1} Mbit/s), {} repairs{parity}, {} acker changes",
            report.bytes,
            report.files,
            report.seconds,
            s.rdata_packets + s.parity_packets,
            report.acker_changes
        );
        if args.resume {
            eprintln!(
                "resume: {} bytes not sent, every receiver had them",
                report.skipped_bytes
            );
        }
        let complete = report
            .receivers
            .iter()
            .filter(|r| r.state == "complete")
            .count();
        eprintln!(
            "receivers: {complete} of {} complete",
            report.receivers.len()
        );
    }
    for r in report.receivers.iter().filter(|r| r.state != "complete") {
        match r.state {
            "shed" => eprintln!(
                "receiver {} was shed at {:.2} Mbit/s (--min-rate): `convoy send --resume` to it completes it",
                r.addr,
                f64::from(r.detail) / 1e3
            ),
            state => eprintln!("receiver {} did not finish ({state})", r.addr),
        }
    }
    if report.receivers.is_empty() && !args.fire_and_forget {
        eprintln!(
            "convoy send: no receiver was heard, so nothing confirms delivery (--fire-and-forget sends without \
             receivers and exits 0)"
        );
    }
    if report.receivers.len() < args.wait_receivers {
        eprintln!(
            "only {} of the {} receivers waited for were heard",
            report.receivers.len(),
            args.wait_receivers
        );
    }
}

/// Close the `--packet-trace` file: a write error is reported, and turns an otherwise successful run's exit code
/// into [`exit::LOCAL_IO`] (what the user asked for was not written).
fn finish_trace(command: &str, trace: Option<std::io::Result<u64>>, code: ExitCode) -> ExitCode {
    match trace {
        Some(Err(e)) => {
            eprintln!("convoy {command}: {e}");
            if code == ExitCode::SUCCESS {
                ExitCode::from(exit::LOCAL_IO)
            } else {
                code
            }
        }
        _ => code,
    }
}

/// Run `convoy recv`.
pub fn run_recv(args: &RecvArgs) -> ExitCode {
    let (output, sink_setup) = match recv_setup(args) {
        Ok(x) => x,
        Err((code, e)) => {
            eprintln!("convoy recv: {e}");
            return ExitCode::from(code);
        }
    };
    if args.keep {
        return crate::recv_keep::run(args, output, sink_setup);
    }
    let mut rx = match sink_setup.open(&args.common.group_options()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("convoy recv: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    if args.raw {
        let code = raw_cmd::recv(&mut rx, args.timeout, args.start_timeout, args.common.quiet);
        return finish_trace("recv", rx.finish_packet_trace(), code);
    }
    let metrics = match args.common.serve_metrics() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("convoy recv: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut display = Display::new(args.common.quiet || args.stdout);
    display.announce_metrics(metrics.as_ref());
    display.message(&format!(
        "receiving {} via {} as {}",
        args.common.group,
        rx.interface().name.as_deref().unwrap_or("default"),
        rx.interface().local
    ));
    let opts = RecvOptions {
        output,
        timeout: args.timeout,
        start_timeout: args.start_timeout,
        metrics: metrics.as_ref().map(MetricsEndpoint::page),
        ..RecvOptions::default()
    };
    let result = receive::receive(&mut rx, &opts, &mut display);
    display.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("convoy recv: {e}");
            return finish_trace("recv", rx.finish_packet_trace(), ExitCode::from(e.code));
        }
    };
    print_recv_report(args, &report);
    let json = setup::recv_stats(&rx, &report);
    if let Err(e) = write_json(&args.common.stats_json, &json) {
        eprintln!("convoy recv: stats: {e}");
    }
    finish_trace(
        "recv",
        rx.finish_packet_trace(),
        ExitCode::from(report.exit_code),
    )
}

/// Where `convoy recv` writes and how it joins, from its arguments; an error with its exit code (the output
/// directory is checked, and created, before the group is joined).
pub(crate) fn recv_setup(args: &RecvArgs) -> Result<(Output, SinkSetup), (u8, String)> {
    let output = match (&args.out, args.stdout) {
        (_, true) => Output::Stdout,
        (Some(d), false) => Output::Dir(d.clone()),
        (None, false) => {
            return Err((
                exit::USAGE,
                "say where data goes: --out DIR or --stdout".into(),
            ));
        }
    };
    if let Output::Dir(d) = &output {
        check_output_dir(d).map_err(|e| (exit::LOCAL_IO, e))?;
    }
    let auth = args
        .common
        .auth(false)
        .map_err(|e| (exit::USAGE, e.to_string()))?;
    let setup = SinkSetup {
        auth,
        cc: cc_config(
            &args.cc,
            100_000_000,
            Duration::from_secs(1),
            StartUp::default(),
        ),
        follow_source: args.cc == CcChoice::Auto,
        max_buffer_bytes: args.max_buffer,
        packet_trace: args.common.packet_trace.clone(),
        refused_sessions: Vec::new(),
    };
    Ok((output, setup))
}

/// The end of `convoy recv` on standard error: what arrived, or why not and which entries are incomplete.
fn print_recv_report(args: &RecvArgs, report: &RecvReport) {
    if !args.common.quiet && report.exit_code == exit::OK {
        eprintln!(
            "received {} bytes in {} entries in {:.2} s",
            report.bytes,
            report.files.len(),
            report.seconds
        );
        if report.resumed_bytes > 0 {
            eprintln!(
                "{} bytes were already here (verified blocks of an earlier run)",
                report.resumed_bytes
            );
        }
    }
    if report.exit_code == exit::OK {
        return;
    }
    eprintln!("convoy recv: {}", report.end);
    for f in report.files.iter().filter(|f| f.state != "complete") {
        let reason = f
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        eprintln!("incomplete: {} ({}{reason})", f.path, f.state);
    }
}
