//! `convoy send` and `convoy recv`: their arguments and how they are parsed (running them: `transfer_run`); files,
//! directories or a stream over PGM/UDP multicast.
//!
//! Exit codes (both commands; `convoy_transfer::exit`):
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | everything arrived (recv); every receiver heard from finished, and at least `--wait-receivers` did (send) |
//! | 1 | bad arguments or setup failure (socket, interface, unreadable input) |
//! | 2 | incomplete: the source went silent or closed early, data was lost, or TFMCC's 120 s leave rule made the receiver leave (recv); a receiver did not finish, fewer than `--wait-receivers` or none were heard (send; none is fine with `--fire-and-forget`) |
//! | 3 | a local write failed at the receiver (disk full, permission denied) |
//! | 4 | an input file changed while it was being sent |

use crate::units::{parse_bytes, parse_duration, parse_rate_bps};
use clap::Args;
use convoy_net::{GroupOptions, Interface};
use convoy_proto::auth::AuthConfig;
use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::pgmcc::{LosslessAcker, StartUp, TimeoutPolicy};
use convoy_proto::cc::CcConfig;
use convoy_proto::named::Named;
use convoy_proto::sender::ParityConfig;
use convoy_proto::RepairPacing;
use convoy_transfer::key_file;
use convoy_transfer::metrics::MetricsEndpoint;
use convoy_transfer::source::SendInput;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// `--cc`: a scheme Convoy registers (`convoy_proto::cc::CcConfig::NAMES`), or `auto` (receivers: follow the
/// source, the scheme its data shows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcChoice {
    /// This scheme, by name.
    Scheme(&'static str),
    /// Follow the source.
    Auto,
}

fn parse_cc(s: &str) -> Result<CcChoice, String> {
    if s == "auto" {
        return Ok(CcChoice::Auto);
    }
    CcConfig::NAMES
        .iter()
        .find(|n| **n == s)
        .map(|n| CcChoice::Scheme(n))
        .ok_or_else(|| {
            format!(
                "no scheme `{s}`; choose {} or auto",
                CcConfig::NAMES.join(", ")
            )
        })
}

fn parse_repairs(s: &str) -> Result<RepairPacing, String> {
    RepairPacing::from_name(s).ok_or_else(|| {
        format!(
            "no repair pacing `{s}`; choose {}",
            RepairPacing::expected()
        )
    })
}

/// `--parity`: `auto` (the default: [`DEFAULT_PARITY_GROUP`] for files, off for a stream and for raw APDUs), a
/// configuration, or none (`off`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum ParityChoice {
    Auto,
    Given(Option<ParityConfig>),
}

/// Transmission group size of `--parity auto` for files. Measured in the namespace lab (30 MB to 20 receivers
/// losing 1% each, one behind 10 Mbit/s, pgmcc, docs/parity.md): groups of 32, 64 and 128 put 1.108, 1.082 and
/// 1.079 bytes on the source's wire per byte of the file; in compare-matrix's uncorrelated-loss row (100
/// receivers) 1.21, 1.19 and 1.17 for pgmcc. 64 takes nearly all of the gain at half the wait of 128 for a
/// group's end before its losses are asked for (RFC 3208 §11.5: loss detection at group boundaries).
const DEFAULT_PARITY_GROUP: &str = "64";

fn parse_parity(s: &str) -> Result<ParityChoice, String> {
    match s {
        "auto" => Ok(ParityChoice::Auto),
        "off" => Ok(ParityChoice::Given(None)),
        _ => ParityConfig::parse(s).map(|p| ParityChoice::Given(Some(p))),
    }
}

impl ParityChoice {
    /// The parity a session sends: `auto` is on-demand parity for files, under every controller (docs/parity.md
    /// has the lab's figures). Not for a stream, which would wait for each group's end before asking for its
    /// losses (at 100 kbit/s a group of 64 packets lasts 7 s), nor for receivers of raw APDUs, which are not
    /// Convoy's (OpenPGM 5.3 aborts on Convoy's parity, docs/interop.md).
    pub(crate) fn resolve(self, input: &SendInput, raw: bool) -> Option<ParityConfig> {
        match self {
            ParityChoice::Given(p) => p,
            ParityChoice::Auto if raw || matches!(input, SendInput::Stdin) => None,
            ParityChoice::Auto => ParityConfig::parse(DEFAULT_PARITY_GROUP).ok(),
        }
    }
}

/// `--repairs`: `auto` (the default: see [`resolve_repairs`]) or a pacing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RepairsChoice(Option<RepairPacing>);

fn parse_repairs_choice(s: &str) -> Result<RepairsChoice, String> {
    if s == "auto" {
        return Ok(RepairsChoice(None));
    }
    parse_repairs(s).map(|p| RepairsChoice(Some(p)))
}

/// The pacing of `--repairs auto`: with parity, charged to the controller, whichever it is; without parity,
/// beside it (the paper's rule for pgmcc, §3.8).
///
/// A NAK for parity asks for up to a group's worth of packets at once, and every receiver's path carries them.
/// Beside the controller they met the slow receiver's queue full: at the repair rate limit beside TFMCC, and
/// beside pgmcc's window even at its rate (`controller-rate`) when a start-up overshoot had cost the slow
/// receiver thousands of packets. Charged to the controller they leave as its rate or window allows (lab figures
/// in docs/parity.md).
pub(crate) fn resolve_repairs(choice: RepairsChoice, parity: bool) -> RepairPacing {
    choice.0.unwrap_or(if parity {
        RepairPacing::Controller
    } else {
        RepairPacing::RateLimit
    })
}

fn parse_pgmcc_start(s: &str) -> Result<StartUp, String> {
    StartUp::from_name(s)
        .ok_or_else(|| format!("no pgmcc start-up `{s}`; choose {}", StartUp::expected()))
}

/// Options both commands share.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// The multicast group and UDP port (the one port carries unicast feedback too), e.g. 239.192.0.1:7500.
    #[arg(long)]
    pub(crate) group: SocketAddr,
    /// Interface by name (eth0) or address (10.0.0.2; also this host's identity in the session).
    #[arg(long)]
    pub(crate) iface: Option<String>,
    /// Write statistics as JSON to this file at the end.
    #[arg(long)]
    pub(crate) stats_json: Option<PathBuf>,
    /// Write every datagram sent and read to this CSV file, one row of its PGM fields each (the columns
    /// Wireshark shows; docs/interop.md).
    #[arg(long, value_name = "FILE")]
    pub(crate) packet_trace: Option<PathBuf>,
    /// No progress bar, only errors.
    #[arg(long)]
    pub(crate) quiet: bool,
    /// A keyed session: the key file `convoy keygen` wrote (readable by its owner only), the same at the source
    /// and every receiver. Every packet is then authenticated (0x3C OPT_CONVOY_AUTH, AES-256-GCM), replays
    /// are dropped, and packets that fail are counted and dropped before they touch the session. With
    /// CONVOY_KEY_PASSPHRASE set, the passphrase is mixed into the key. docs/keyed-sessions.md.
    #[arg(long, value_name = "FILE")]
    pub(crate) key_file: Option<PathBuf>,
    /// Serve the transfer's figures for Prometheus at http://ADDR/metrics while it runs (OpenMetrics text,
    /// refreshed once a second): a send's bytes, rate and every receiver's rate, loss and RTT; a receive's bytes,
    /// repairs and NAKs (docs/transfer.md, "Watching a send"). A local address, e.g. 127.0.0.1:9464.
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics: Option<SocketAddr>,
}

impl CommonArgs {
    /// The session key, if `--key-file` was given.
    pub(crate) fn auth(&self, encrypt: bool) -> std::io::Result<Option<AuthConfig>> {
        let Some(path) = &self.key_file else {
            return Ok(None);
        };
        let passphrase = std::env::var(key_file::PASSPHRASE_VAR).ok();
        let key = key_file::load(path, passphrase.as_deref())?;
        Ok(Some(AuthConfig {
            key,
            encrypt,
            identity: [0; 16],
        }))
    }

    /// The metrics endpoint of `--metrics`, listening, when asked for.
    pub(crate) fn serve_metrics(&self) -> Result<Option<MetricsEndpoint>, String> {
        self.metrics
            .map(MetricsEndpoint::serve)
            .transpose()
            .map_err(|e| e.to_string())
    }

    pub(crate) fn group_options(&self) -> GroupOptions {
        let mut g = GroupOptions::new(self.group);
        if let Some(i) = &self.iface {
            g.interface = i.parse::<Interface>().unwrap_or(Interface::Default);
        }
        g
    }
}

/// The controller configuration of a choice (`Auto` starts from the default scheme and follows the source), with
/// the knobs the command line offers for the schemes that have them: pgmcc's timeout floor, the fixed rate.
pub(crate) fn cc_config(
    choice: &CcChoice,
    rate_bps: u64,
    rto_min: Duration,
    start: StartUp,
) -> CcConfig {
    let mut cc = match choice {
        CcChoice::Scheme(name) => CcConfig::by_name(name).unwrap_or_default(),
        CcChoice::Auto => CcConfig::default(),
    };
    if let CcConfig::Pgmcc(p) = &mut cc {
        p.start = start;
        // LAN paths with sub-millisecond RTTs run small windows: without it each loss there waits for the timeout.
        p.early_loss = true;
        // Random loss on every path must not take the acker role from a slow path that has lost nothing yet.
        p.lossless_acker = LosslessAcker::AtSendingRate;
        // Every receiver's report reaches the application: the progress line and --status-file show them.
        p.report_events = true;
        p.timeout = TimeoutPolicy::Adaptive {
            initial: Duration::from_secs(3),
            min: rto_min,
            max: Duration::from_secs(60),
        };
    }
    if let CcConfig::Fixed(f) = &mut cc {
        *f = FixedConfig {
            rate_bytes_per_s: (rate_bps / 8).max(1),
            burst: Duration::from_millis(5),
        };
    }
    cc
}

/// Options of `convoy send`.
#[derive(Args, Debug)]
pub struct SendArgs {
    /// Files or directories to send, or `-` for standard input as a stream (each checked readable before the
    /// session opens: exit 1 naming the path).
    #[arg(required = true)]
    pub(crate) paths: Vec<String>,
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Congestion control: pgmcc, tfmcc (RFC 4654), aimd (Shi–Waldvogel) or fixed (receivers follow it by default).
    #[arg(long, value_parser = parse_cc, default_value = "pgmcc")]
    pub(crate) cc: CcChoice,
    /// Floor of pgmcc's feedback timeout (draft §2.7 with RFC 6298: 1 s). Small windows on LAN paths recover
    /// without it (early loss detection and a tail loss probe, RFC 5827 and RFC 8985 §7): the timeout is left
    /// for feedback that stops altogether.
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub(crate) rto_min: Duration,
    /// pgmcc's start-up: `until-congestion` (exponential until a loss, a NAK or the acker's RTT rising, paced to
    /// one doubling per 4 ms on sub-millisecond RTTs; the receiver reporting the lowest receive rate becomes the
    /// acker and bounds the window) or `paper` (exponential up to a fixed threshold of 6 packets, then one
    /// packet per RTT; pgmcc paper §3.4). In the namespace lab the paper's start-up put up to 2.3 bytes on the
    /// source's wire per byte of a file, `until-congestion` at most 1.07 (bench/startup-grid.sh); `convoy bench
    /// startup` compares them in the simulator.
    #[arg(long, value_parser = parse_pgmcc_start, default_value = "until-congestion")]
    pub(crate) pgmcc_start: StartUp,
    /// Data rate with `--cc fixed` (20Mbit, 1Gbit, 2MB/s, ...).
    #[arg(long, value_parser = parse_rate_bps, default_value = "100Mbit")]
    pub(crate) rate: u64,
    /// Parity repairs (RFC 3208 §11, docs/parity.md): `K` groups the data in transmission groups of K packets
    /// (a power of 2 up to 128) and answers a receiver missing j packets of a group with j parity packets, any
    /// of which repairs any loss of the group at every receiver; `K+H` also sends H parity packets after every
    /// group, counted by the controller like data (for live streams); `off` repairs packet by packet; `auto`
    /// is 64 for files (docs/parity.md), off for a stream (`-`, whose losses would wait for their group's end)
    /// and with --raw.
    #[arg(long, value_parser = parse_parity, default_value = "auto")]
    pub(crate) parity: ParityChoice,
    /// Maximum rate of all data (PGM rate limiter), e.g. 500Mbit.
    #[arg(long, value_parser = parse_rate_bps)]
    pub(crate) rate_max: Option<u64>,
    /// Shed slow receivers: a receiver whose rate, as the congestion controller credits it (pgmcc's TCP equation
    /// at its loss and RTT, TFMCC's reported rate, aimd's capacity), stays below RATE for --min-rate-grace is
    /// asked to leave; the session goes on at the others' pace. The shed receiver exits with code 5 keeping what
    /// it verified, for a later --resume; this send exits 5 when everyone else completed (docs/transfer.md,
    /// "Shedding a slow receiver"). E.g. 10Mbit.
    #[arg(long, value_parser = parse_rate_bps, value_name = "RATE")]
    pub(crate) min_rate: Option<u64>,
    /// How long a receiver's reported rate must stay below --min-rate before it is shed.
    #[arg(long, value_parser = parse_duration, default_value = "10s", requires = "min_rate")]
    pub(crate) min_rate_grace: Duration,
    /// Maximum rate of repairs (default: half of --rate-max when given, else 100Mbit): a flood of
    /// NAKs cannot push repairs above it.
    #[arg(long, value_parser = parse_rate_bps)]
    pub(crate) repair_rate_max: Option<u64>,
    /// How repairs are paced: `rate-limit` (repairs leave as NAKs ask, limited only by --repair-rate-max, as the
    /// pgmcc paper sends them), `controller-rate` (beside the controller too, but no faster than its own rate:
    /// a parity NAK's burst is spread), `controller` (each repair needs the congestion controller's permit and
    /// counts against its rate or window: for many receivers behind lossy paths, where repairs beside the
    /// controller can overload their links) or `auto`: controller with parity, rate-limit without
    /// (docs/parity.md).
    #[arg(long, value_parser = parse_repairs_choice, default_value = "auto")]
    pub(crate) repairs: RepairsChoice,
    /// Give up (exit 2) when no receiver has answered the controller's feedback requests (pgmcc's acker
    /// election, TFMCC's and aimd's reports) this long after the first data packet: receivers that are not
    /// Convoy's (OpenPGM, ZeroMQ) never do, so send to them with --cc fixed --rate RATE. `0s` waits for ever.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub(crate) feedback_timeout: Duration,
    /// Send standard input (`-`) as raw APDUs, without Convoy's file and stream messages, for PGM receivers
    /// that are not Convoy's (OpenPGM, ZeroMQ; docs/interop.md): no manifest, hash or receiver reports.
    #[arg(long)]
    pub(crate) raw: bool,
    /// APDU size with --raw; larger than one packet's payload, an APDU leaves as fragments (OPT_FRAGMENT).
    #[arg(long, value_parser = parse_bytes, default_value = "1400B", requires = "raw")]
    pub(crate) apdu_size: u64,
    /// Wait until this many receivers announced themselves before sending.
    #[arg(long, default_value_t = 0)]
    pub(crate) wait_receivers: usize,
    /// Send without receivers: exit 0 even if none is heard (by default hearing none is incomplete, exit 2).
    #[arg(long)]
    pub(crate) fire_and_forget: bool,
    /// Longest wait for receivers before sending (alone: wait this long), e.g. 10s.
    #[arg(long, value_parser = parse_duration)]
    pub(crate) wait: Option<Duration>,
    /// After the data, give up on receivers when nothing progresses for this long (also the longest close). Once
    /// every receiver heard from has reported, the source ends at once; otherwise it lingers 3 s for late repairs.
    #[arg(long, value_parser = parse_duration, default_value = "30s")]
    pub(crate) finish_timeout: Duration,
    /// Send only what the receivers lack: after the manifest, wait (at most --resume-wait) for every receiver
    /// heard from to say which blocks it lacks — a receiver keeps the verified blocks of an interrupted transfer
    /// in NAME.partial, and a complete NAME counts whole — then send the union of their needs. Use it to re-run a
    /// transfer that failed or was interrupted; combine with --wait-receivers N to hear everyone first.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Longest wait for the receivers' needs with --resume; a receiver that has not answered gets everything.
    #[arg(long, value_parser = parse_duration, default_value = "5s", requires = "resume")]
    pub(crate) resume_wait: Duration,
    /// Rewrite FILE once a second with the send's status as JSON (written beside it and renamed, so a reader
    /// never sees half of it): bytes, rate, the receiver that limits the session and every receiver's state, rate,
    /// loss and RTT as last reported (docs/transfer.md, "Watching a send").
    #[arg(long, value_name = "FILE")]
    pub(crate) status_file: Option<PathBuf>,
    /// With --key-file: authenticate every packet but send the data in the clear (by default it is encrypted).
    #[arg(long, requires = "key_file")]
    pub(crate) no_encrypt: bool,
    /// Multicast TTL (hops).
    #[arg(long, default_value_t = 1)]
    pub(crate) ttl: u32,
    /// Do not loop multicast back to receivers on this host.
    #[arg(long)]
    pub(crate) no_loopback: bool,
    /// Packets kept in memory for repair (older ones are re-read from the files); for tests.
    #[arg(long, default_value_t = 40_000, hide = true)]
    pub(crate) txw_packets: usize,
}

/// Options of `convoy recv`.
#[derive(Args, Debug)]
pub struct RecvArgs {
    #[command(flatten)]
    pub(crate) common: CommonArgs,
    /// Congestion control: follow the source (auto), or force pgmcc, tfmcc or fixed (it must then match the source's).
    #[arg(long, value_parser = parse_cc, default_value = "auto")]
    pub(crate) cc: CcChoice,
    /// Directory to write the files into (created if missing; checked before joining: exit 3 at once when it
    /// cannot be created or written).
    #[arg(long, conflicts_with = "stdout")]
    pub(crate) out: Option<PathBuf>,
    /// Write a stream to standard output.
    #[arg(long)]
    pub(crate) stdout: bool,
    /// Stay up: receive transfer after transfer into --out (files by name, with resume's rules: a file already
    /// there and verified is not received again, a `.partial` is completed), one line per transfer on standard
    /// error, until SIGTERM or SIGINT, which ends it cleanly (exit 0; an interrupted transfer keeps its verified
    /// blocks in `NAME.partial`). For a service manager: docs/transfer.md, "A receiver that stays up".
    #[arg(long, conflicts_with_all = ["stdout", "raw", "packet_trace", "start_timeout"], requires = "out")]
    pub(crate) keep: bool,
    /// Write every APDU the session delivers to standard output as it is, without Convoy's messages: for PGM
    /// sources that are not Convoy's (OpenPGM, ZeroMQ; docs/interop.md). Needs --stdout.
    #[arg(long, requires = "stdout")]
    pub(crate) raw: bool,
    /// Give up when the source has been silent this long.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub(crate) timeout: Duration,
    /// Give up if no source is heard within this time (default: wait forever).
    #[arg(long, value_parser = parse_duration)]
    pub(crate) start_timeout: Option<Duration>,
    /// Most data held in memory: packets waiting behind a missing one plus data not yet written. Past half of
    /// it this receiver reports congestion, so the session slows to it; at the bound it refuses packets (as if
    /// lost, repaired later). "0B" = no bound.
    #[arg(long, value_parser = parse_bytes, default_value = "64MiB")]
    pub(crate) max_buffer: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_auto_is_64_for_files_and_off_for_streams_and_raw_apdus() {
        let files = SendInput::Paths(vec![PathBuf::from("a")]);
        let auto = parse_parity("auto").unwrap();
        let k = |p: Option<ParityConfig>| p.map(|p| p.params().tg_size);
        assert_eq!(k(auto.resolve(&files, false)), Some(64));
        assert_eq!(k(auto.resolve(&SendInput::Stdin, false)), None);
        assert_eq!(k(auto.resolve(&files, true)), None);
        assert_eq!(
            k(parse_parity("16")
                .unwrap()
                .resolve(&SendInput::Stdin, false)),
            Some(16)
        );
        assert_eq!(k(parse_parity("off").unwrap().resolve(&files, false)), None);
    }

    #[test]
    fn repairs_auto_are_charged_to_the_controller_with_parity_only() {
        let auto = parse_repairs_choice("auto").unwrap();
        assert_eq!(resolve_repairs(auto, true), RepairPacing::Controller);
        assert_eq!(resolve_repairs(auto, false), RepairPacing::RateLimit);
        let given = parse_repairs_choice("controller-rate").unwrap();
        assert_eq!(resolve_repairs(given, true), RepairPacing::ControllerRate);
        assert!(parse_repairs_choice("sometimes").is_err());
    }
}
