//! `convoy send --raw` and `convoy recv --raw`: APDUs without Convoy's message layer
//! (`convoy_transfer::raw`), for PGM peers that are not Convoy's (docs/interop.md).

use convoy_net::{NetReceiver, NetSender};
use convoy_proto::rxw::RxwConfig;
use convoy_transfer::raw::{self, RawReport};
use convoy_transfer::source::SendInput;
use convoy_transfer::{exit, TransferError};
use std::process::ExitCode;
use std::time::Duration;

fn finish(
    cmd: &str,
    what: &str,
    quiet: bool,
    result: Result<RawReport, TransferError>,
) -> ExitCode {
    match result {
        Ok(r) => {
            if !quiet {
                eprintln!(
                    "{what} {} APDUs ({} bytes), {} repairs",
                    r.apdus, r.bytes, r.repairs
                );
            }
            ExitCode::from(exit::OK)
        }
        Err(e) => {
            eprintln!("convoy {cmd}: {e}");
            ExitCode::from(e.code)
        }
    }
}

/// Whether `--raw` can send `input` in APDUs of `apdu_size` bytes: standard input only, and APDUs a receiver
/// accepts (from one byte to its default bound, `RxwConfig::max_apdu_len`), checked before the session opens.
pub fn check_send(input: &SendInput, apdu_size: u64) -> Result<(), String> {
    if !matches!(input, SendInput::Stdin) {
        return Err("--raw sends standard input: give `-` as the only input".into());
    }
    let max = u64::from(RxwConfig::default().max_apdu_len);
    if apdu_size == 0 || apdu_size > max {
        return Err(format!(
            "--apdu-size {apdu_size}B: must be from 1B to {max}B (what receivers accept)"
        ));
    }
    Ok(())
}

/// Standard input in APDUs of `apdu_size` bytes.
pub fn send(
    tx: &mut NetSender,
    apdu_size: usize,
    close_timeout: Duration,
    quiet: bool,
) -> ExitCode {
    let result = raw::send(tx, &mut std::io::stdin().lock(), apdu_size, close_timeout);
    finish("send", "sent", quiet, result)
}

/// Every APDU delivered, to standard output.
pub fn recv(
    rx: &mut NetReceiver,
    timeout: Duration,
    start_timeout: Option<Duration>,
    quiet: bool,
) -> ExitCode {
    let result = raw::receive(rx, &mut std::io::stdout().lock(), timeout, start_timeout);
    finish("recv", "received", quiet, result)
}
