//! Raw APDUs, without Convoy's message layer: for PGM peers that are not Convoy's (OpenPGM, ZeroMQ's pgm
//! transport), which see the APDUs themselves (docs/interop.md).
//!
//! [`send`] cuts its input into APDUs of a fixed size (the last one shorter) and sends each as it is; an APDU
//! larger than one packet leaves as fragments (RFC 3208 §9.3, OPT_FRAGMENT). [`receive`] writes every APDU the
//! session delivers, in order, and nothing else. There is no manifest, hash or status report: the source cannot
//! know who received what, and a receiver learns the end from the source's OPT_FIN. Nothing is lost silently: a
//! receiver that is told data can no longer be repaired (RFC 3208 §6.3, [`ReceiverEvent::Lost`]) stops at once
//! with exit 2, naming the sequence numbers, after writing everything before them.

use super::{exit, TransferError};
use convoy_net::{NetReceiver, NetSender};
use convoy_proto::ReceiverEvent;
use std::io::{Read, Write};
use std::time::Duration;

/// What a raw send or receive moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawReport {
    /// APDUs sent or delivered.
    pub apdus: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Repairs (RDATA) the source sent, or the receiver received.
    pub repairs: u64,
}

/// Read `input` to its end in APDUs of `apdu_size` bytes and send them; then close the session (OPT_FIN and the
/// linger for late repairs), waiting at most `close_timeout`.
pub fn send(
    tx: &mut NetSender,
    input: &mut dyn Read,
    apdu_size: usize,
    close_timeout: Duration,
) -> Result<RawReport, TransferError> {
    let mut buf = vec![0u8; apdu_size.max(1)];
    let mut report = RawReport::default();
    loop {
        let n = fill(input, &mut buf)
            .map_err(|e| TransferError::new(exit::LOCAL_IO, format!("reading the input: {e}")))?;
        if n == 0 {
            break;
        }
        tx.write(&buf[..n])?;
        report.apdus += 1;
        report.bytes += n as u64;
    }
    tx.flush();
    let closed = tx.close(close_timeout)?;
    report.repairs = tx.sender().stats().rdata_packets;
    if !closed {
        return Err(TransferError::new(
            exit::INCOMPLETE,
            format!(
                "sent {} APDUs ({} bytes) but the session did not close within {:.0} s",
                report.apdus,
                report.bytes,
                close_timeout.as_secs_f64()
            ),
        ));
    }
    Ok(report)
}

/// Read until `buf` is full or the input ends; the bytes read.
fn fill(input: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Write every APDU the session delivers to `out` until the source closes it; fail when the source stays silent
/// for `timeout` (or is not heard within `start_timeout`), or when data is lost.
pub fn receive(
    rx: &mut NetReceiver,
    out: &mut dyn Write,
    timeout: Duration,
    start_timeout: Option<Duration>,
) -> Result<RawReport, TransferError> {
    let mut report = RawReport::default();
    let started = std::time::Instant::now();
    let io =
        |e: std::io::Error| TransferError::new(exit::LOCAL_IO, format!("writing the output: {e}"));
    loop {
        match rx.recv(Duration::from_millis(100))? {
            Some(ReceiverEvent::Data(apdu)) => {
                out.write_all(&apdu).map_err(io)?;
                report.apdus += 1;
                report.bytes += apdu.len() as u64;
            }
            Some(ReceiverEvent::Lost {
                first_sqn,
                last_sqn,
            }) => {
                out.flush().map_err(io)?;
                return Err(TransferError::new(
                    exit::INCOMPLETE,
                    format!(
                        "sequence numbers {first_sqn}..={last_sqn} can no longer be repaired; {} APDUs ({} bytes) before \
                         them were written, nothing after",
                        report.apdus, report.bytes
                    ),
                ));
            }
            Some(ReceiverEvent::Finished) => {
                report.repairs = rx.receiver().stats().rdata;
                break;
            }
            Some(_) => {}
            None => {}
        }
        let silent = match rx.silence() {
            Some(s) => s >= timeout,
            None => start_timeout.is_some_and(|limit| started.elapsed() >= limit),
        };
        if silent {
            out.flush().map_err(io)?;
            return Err(TransferError::new(
                exit::INCOMPLETE,
                format!(
                    "the source was silent for {:.0} s; {} APDUs ({} bytes) were written",
                    timeout.as_secs_f64(),
                    report.apdus,
                    report.bytes
                ),
            ));
        }
    }
    out.flush().map_err(io)?;
    Ok(report)
}
