//! The `convoy` command.
//!
//! Subcommands so far: `demo`, a pgmcc session over the engine's in-memory harness that prints what happened.
//! `sim`, `reproduce`, `send`, `recv` and `bench` arrive with the simulator and the network driver.

mod demo;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Demo(args) => demo::run(&args),
    }
}
