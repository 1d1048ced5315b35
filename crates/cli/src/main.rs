//! The `convoy` command.
//!
//! Subcommands: `reproduce`, the seed papers' experiments with verdicts and an HTML report; `sim`, a scenario file
//! run in the packet-level simulator (summary.json, CSV series, SVG plots, optionally a pcap); `send` and `recv`,
//! files, directories or a stream over PGM/UDP multicast (exit codes in [`transfer_cmd`]); `sweep`, a grid of
//! scenario variants × seeds on all cores into one table; `bench net`, loopback
//! throughput figures; `bench sim`, the simulator's speed and memory on scenarios/bench/; `demo`, a pgmcc
//! session over the engine's in-memory harness, narrated.

mod bench_net;
mod demo;
mod progress;
mod raw_cmd;
mod recv_keep;
mod sweep_cmd;
mod transfer_cmd;
mod transfer_display;
mod transfer_run;
mod units;

use clap::{Parser, Subcommand};
use convoy_experiments::bench;
use convoy_experiments::simrun::{self, SimOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Convoy: TCP-friendly single-rate multicast congestion control (pgmcc) over PGM.
#[derive(Parser, Debug)]
#[command(
    name = "convoy",
    version,
    about = "TCP-friendly single-rate multicast congestion control (pgmcc, TFMCC and aimd, the agent-based rate \
             AIMD scheme of Shi and Waldvogel) in one engine: on a packet-level simulator (reproduce, sim, sweep) \
             and on the network over PGM/UDP multicast (send, recv)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a demonstration pgmcc session (one sender, several receivers, in-memory network, virtual time).
    Demo(demo::DemoArgs),
    /// Run a scenario file in the simulator and write summary.json, CSV series and SVG plots.
    Sim(SimArgs),
    /// Reproduce the seed papers' experiments: run them, judge each claim, write verdicts.json and index.html.
    Reproduce(ReproduceArgs),
    /// Send files, directories or standard input (`-`) to a multicast group.
    ///
    /// Exit codes: 0 every receiver heard from finished; 1 bad arguments or setup; 2 a receiver did not finish,
    /// fewer than --wait-receivers were heard, or none was (unless --fire-and-forget); 4 an input file changed
    /// while being sent.
    Send(transfer_cmd::SendArgs),
    /// Receive a transfer from a multicast group into a directory (or a stream to standard output).
    ///
    /// Exit codes: 0 everything arrived; 1 bad arguments or setup; 2 incomplete (source silent or gone, data
    /// lost, or a TFMCC session this receiver's path could not follow for 120 s, RFC 4654 §4.4) — incomplete
    /// files are named and kept as NAME.partial; 3 a local write failed (disk full, permission denied).
    Recv(transfer_cmd::RecvArgs),
    /// Write a new session key file (mode 600) for `convoy send/recv --key-file`; copy it to the session's
    /// members over a secure channel (ssh, configuration management). docs/keyed-sessions.md.
    ///
    /// Exit codes: 0 written; 1 the file exists (unless --force) or cannot be written.
    Keygen {
        /// Where to write the key.
        file: std::path::PathBuf,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Run a grid of scenario variants × seeds on all cores, resumably, into one long table (docs/sweep.md).
    ///
    /// Exit codes: 0 every run has a result; 1 the grid file is wrong (file, line and key named); 2 some runs
    /// failed (each named with its error; the others' results are kept).
    Sweep(sweep_cmd::SweepArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand, Debug)]
enum BenchCommand {
    /// Loopback throughput: raw sendmmsg loop, Convoy fixed (unlimited) and pgmcc (also keyed, and keyed with
    /// encrypted payloads), with 1 and 3 receivers.
    Net(bench_net::BenchNetArgs),
    /// The simulator's speed and memory on the canonical scenarios of scenarios/bench/ (dumbbell-1, -10, -100,
    /// star-1000, star-10000, mcast-fixed-1000, mcast-fixed-10000), each run in its own child process.
    Sim {
        /// Print one JSON object {"scenarios": [...]} instead of a table.
        #[arg(long)]
        json: bool,
        /// Run only these scenarios (repeatable, or comma-separated).
        #[arg(long, value_name = "NAME")]
        only: Vec<String>,
    },
    /// pgmcc's start-up (the paper's fixed threshold and `start = "until-congestion"`) beside a TCP slow start:
    /// time to 90% of the bottleneck rate, drops in the first overshoot, drops and repairs, on
    /// scenarios/examples/pgmcc-startup-fat-path.toml and pgmcc-startup-slow-receiver.toml (1, 10, 100
    /// receivers).
    Startup {
        /// Print the rows as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// `convoy sweep`'s overhead per run against the same runs one by one, with one job and with all cores
    /// (runs of about one second: scenarios/bench/dumbbell-10.toml, duration scaled).
    Sweep {
        /// Runs (seeds).
        #[arg(long, default_value_t = 8)]
        runs: usize,
        /// Jobs of the parallel sweep (default: the number of cores).
        #[arg(long)]
        jobs: Option<usize>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// (internal) Run one canonical scenario and print its figures as one line of JSON.
    #[command(hide = true)]
    SimOne {
        /// Canonical scenario name.
        name: String,
        /// Read the RSS once the first session has sent this many data packets (default: at the end).
        #[arg(long, value_name = "PACKETS")]
        rss_at_packets: Option<u64>,
        /// Override a scenario value, as in `convoy sim` (for trying variants; the result is then not canonical).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
    },
    /// (internal) Measure the engine's receivers on their own and print one line of JSON.
    #[command(hide = true)]
    SimEndpoint {
        /// Receivers to build.
        #[arg(long, default_value_t = bench::ENDPOINT_RECEIVERS)]
        receivers: usize,
        /// Simulated seconds of star traffic to replay into each.
        #[arg(long, default_value_t = bench::ENDPOINT_SECONDS)]
        seconds: f64,
    },
}

/// Arguments of `convoy reproduce`.
#[derive(clap::Args, Debug)]
struct ReproduceArgs {
    /// Experiment ids (all by default), e.g. pgmcc-fig5-acker.
    ids: Vec<String>,
    /// Output directory.
    #[arg(long, default_value = "out/reproduce")]
    out: PathBuf,
    /// Run seeds 1..K; a verdict passes only if it passes for every seed.
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Parallel simulations [default: the number of cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// Directory of the scenario files.
    #[arg(long, default_value = "scenarios")]
    scenarios: PathBuf,
    /// Print only the final table.
    #[arg(long)]
    quiet: bool,
    /// Print the registered experiment ids, one per line, and run nothing.
    #[arg(long)]
    list: bool,
}

fn reproduce(args: ReproduceArgs) -> ExitCode {
    if args.list {
        for e in convoy_experiments::reproduce::registry::all() {
            println!("{}", e.id);
        }
        return ExitCode::SUCCESS;
    }
    let opts = convoy_experiments::reproduce::ReproduceOptions {
        ids: args.ids,
        out: args.out,
        seeds: args.seeds,
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        scenarios: args.scenarios,
    };
    let mut on_run = |r: &convoy_experiments::reproduce::RunDone<'_>| {
        if !args.quiet {
            let v = if r.variant.is_empty() {
                String::new()
            } else {
                format!(" [{}]", r.variant)
            };
            eprintln!(
                "[{}/{}] {}{v} seed {}: {:.1} s",
                r.done, r.total, r.id, r.seed, r.seconds
            );
        }
    };
    match convoy_experiments::reproduce::reproduce(&opts, &mut on_run) {
        Ok(verdicts) => {
            for v in &verdicts {
                println!(
                    "{:<28} {:<8}  ({}/{} seeds)",
                    v.id,
                    v.status.label(),
                    v.seeds.passed,
                    v.seeds.run
                );
            }
            println!("report: {}", opts.out.join("index.html").display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("convoy reproduce: {e}");
            ExitCode::from(2)
        }
    }
}

/// Arguments of `convoy sim`.
#[derive(clap::Args, Debug)]
struct SimArgs {
    /// The scenario (TOML; see docs/scenario-format.md).
    scenario: PathBuf,
    /// Output directory [default: out/STEM, STEM being the scenario file name without .toml].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of every random stream (overrides run.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Override a scenario value, e.g. --set link.bottleneck.rate=1Mbit (repeatable, applied in order).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Write a pcap of this link direction (`name`, or `name:rev` for the reverse direction).
    #[arg(long, value_name = "LINK")]
    pcap: Option<String>,
    /// No progress bar and no report (for scripts).
    #[arg(long)]
    quiet: bool,
}

fn sim(args: SimArgs) -> ExitCode {
    let opts = SimOptions {
        scenario: args.scenario,
        out: args.out,
        seed: args.seed,
        sets: args.sets,
        pcap: args.pcap,
    };
    match simrun::run(&opts, &mut progress::SimBar::new(args.quiet)) {
        Ok(report) => {
            if !args.quiet {
                let s = &report.summary;
                println!(
                    "{}: {} simulated s, {} events in {:.2} s wall (seed {})",
                    s.scenario, s.duration_s, s.events, s.wall_s, s.seed
                );
                for f in &s.flows {
                    println!(
                        "  {:<12} {:<12} goodput {:>10.1} kbit/s",
                        f.id,
                        f.kind,
                        f.goodput_bps / 1e3
                    );
                }
                println!(
                    "wrote {}: {}",
                    report.dir.display(),
                    report.files.join(", ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_json<T: serde::Serialize>(v: &T) -> ExitCode {
    match serde_json::to_string(v) {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn bench_cmd(cmd: BenchCommand) -> ExitCode {
    let result = match cmd {
        BenchCommand::Net(args) => return bench_net::run_net(&args),
        BenchCommand::Sim { json, only } => {
            let mut progress = |line: &str| {
                if !json {
                    eprintln!("{line}");
                }
            };
            bench::run(&only, &mut progress).map(|report| {
                if json {
                    print_json(&report)
                } else {
                    print!("{}", bench::table(&report));
                    ExitCode::SUCCESS
                }
            })
        }
        BenchCommand::Startup { json } => {
            let mut progress = |line: &str| {
                if !json {
                    eprintln!("{line}");
                }
            };
            bench::startup::run(&mut progress).map(|rows| {
                if json {
                    print_json(&rows)
                } else {
                    print!("{}", bench::startup::table(&rows));
                    ExitCode::SUCCESS
                }
            })
        }
        BenchCommand::Sweep { runs, jobs, json } => {
            let jobs =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            bench::sweep::run(runs.max(1), 1.0, jobs.max(1)).map(|b| {
                if json {
                    print_json(&b)
                } else {
                    print!("{}", bench::sweep::table(&b));
                    ExitCode::SUCCESS
                }
            })
        }
        BenchCommand::SimOne {
            name,
            rss_at_packets,
            sets,
        } => bench::child::run_scenario(&name, rss_at_packets, &sets).map(|r| print_json(&r)),
        BenchCommand::SimEndpoint { receivers, seconds } => {
            bench::child::endpoint_size(receivers, seconds).map(|r| print_json(&r))
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Demo(args) => demo::run(&args),
        Command::Reproduce(args) => reproduce(args),
        Command::Send(args) => transfer_run::run_send(&args),
        Command::Recv(args) => transfer_run::run_recv(&args),
        Command::Keygen { file, force } => {
            match convoy_transfer::key_file::generate(&file, force) {
                Ok(()) => {
                    eprintln!("wrote a session key to {}", file.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("convoy keygen: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Sim(args) => sim(args),
        Command::Bench(cmd) => bench_cmd(cmd),
        Command::Sweep(args) => sweep_cmd::run(&args),
    }
}
