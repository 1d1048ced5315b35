//! Convoy over real networks: PGM (RFC 3208) over UDP multicast, driving the very same convoy-proto endpoints
//! the simulator runs (docs/architecture.md, "net").
//!
//! * [`socket`] — UDP sockets with one port for unicast and multicast (docs/wire-format.md §1.6, §2): group join on an
//!   interface chosen by name or address, TTL, multicast loopback, IPv4 and IPv6.
//! * [`driver`] — the real [`Clock`] and the single-threaded event loop: `ppoll` with nanosecond deadlines and
//!   1 µs timer slack for pacing, `recvmmsg`/`sendmmsg` batches, convoy-proto's call order.
//! * [`burst`] — how many datagrams one UDP GSO send may carry (about 1 ms of data at the sending rate).
//! * [`NetSender`] / [`NetReceiver`] — the library API: open a source or a receiver on a group, write and read
//!   APDUs, pick the controller through the engine configuration, observe events, close cleanly.
//! * [`packet_trace`] — `--packet-trace`: every datagram sent and read as a CSV row of its PGM fields.
//! * `sys` (private) — the only module with `unsafe`: the system calls socket2 does not wrap.
//!
//! See `examples/ticker.rs` for a feed that adapts what it sends to the tokens pgmcc grants. The file transfer
//! tool (`convoy send` / `convoy recv`) is built on this crate in convoy-transfer.

pub mod burst;
pub mod driver;
pub mod feedback_watch;
pub mod packet_trace;
mod receiver;
mod sender;
pub mod socket;
mod sys;

pub use driver::{Clock, IoStats};
pub use receiver::{NetReceiver, MAX_AWAITED_REPAIRS, MAX_DATAGRAM};
pub use sender::{NetSender, RepairSource, FLUSH_AFTER};
pub use socket::{GroupOptions, Interface, ResolvedInterface};
pub use sys::{interface_addrs, InterfaceAddr};

/// The batched system calls of the loop, for benchmarks and tools that need a raw baseline.
pub mod syscalls {
    pub use crate::sys::{
        enable_gro, recv_batch, send_batch, send_segmented, thread_cpu_time, wait_readable,
        Received, MAX_BATCH, MAX_SEGMENTED_BYTES, MAX_SEGMENTS,
    };
}
