//! The `convoy` command.
//!
//! Subcommands: `demo`, a pgmcc session over the engine's in-memory harness that prints what happened; `send` and
//! `recv`, files, directories or a stream over PGM/UDP multicast (exit codes in [`transfer_cmd`]). `bench net`,
//! loopback throughput figures. `sim` and `reproduce` arrive with the simulator.

mod bench;
mod demo;
mod transfer_cmd;
mod units;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Convoy: TCP-friendly single-rate multicast congestion control (pgmcc) over PGM.
#[derive(Parser, Debug)]
#[command(name = "convoy", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a demonstration pgmcc session (one sender, several receivers, in-memory network, virtual time).
    Demo(demo::DemoArgs),
    /// Send files, directories or standard input (`-`) to a multicast group.
    ///
    /// Exit codes: 0 every receiver heard from finished; 1 bad arguments or setup; 2 a receiver did not finish
    /// or fewer than --wait-receivers were heard; 4 an input file changed while being sent.
    Send(transfer_cmd::SendArgs),
    /// Receive a transfer from a multicast group into a directory (or a stream to standard output).
    ///
    /// Exit codes: 0 everything arrived; 1 bad arguments or setup; 2 incomplete (source silent or gone, data
    /// lost) — incomplete files are named and kept as NAME.partial; 3 a local write failed (disk full,
    /// permission denied).
    Recv(transfer_cmd::RecvArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand, Debug)]
enum BenchCommand {
    /// Loopback throughput: raw sendmmsg loop, Convoy fixed (unlimited) and pgmcc, with 1 and 3 receivers.
    Net(bench::BenchNetArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Demo(args) => demo::run(&args),
        Command::Send(args) => transfer_cmd::run_send(&args),
        Command::Recv(args) => transfer_cmd::run_recv(&args),
        Command::Bench(BenchCommand::Net(args)) => bench::run_net(&args),
    }
}
