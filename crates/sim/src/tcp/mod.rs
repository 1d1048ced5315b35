//! TCP models for comparing Convoy's multicast flows with TCP: sans-IO [`TcpSender`] and [`TcpSink`] for
//! "one-way" bulk transfers as in ns-2/ns-3 studies.
//!
//! There is no handshake and no FIN; sequence numbers count payload bytes from 0 as `u64` and never wrap; the
//! receiver window is unlimited unless [`TcpConfig::max_cwnd`] models one. The simulator moves
//! [`TcpSegment`]s (small and `Copy`, charged [`TcpSegment::wire_bytes`] on links); the endpoints never see
//! packets, links or clocks, and are deterministic (no randomness, no hash-map iteration).
//!
//! * [`TcpSender`]: RFC 5681 slow start and congestion avoidance, RFC 6298 retransmission timer with Karn's
//!   algorithm, and loss recovery per [`TcpVariant`]: Reno (RFC 5681 §3.2), NewReno (RFC 6582), SACK
//!   (RFC 6675). Its module docs list every choice where the RFCs leave room.
//! * [`TcpSink`]: cumulative ACKs, optional delayed ACKs (RFC 1122, RFC 5681 §4.2), SACK blocks (RFC 2018).
//!
//! Driving a flow: after each input call the sender's [`TcpSender::poll_segment`] (or the sink's
//! [`TcpSink::poll_ack`]) until `None`, then re-arm the timer from `poll_timeout()` and call
//! `handle_timeout(now)` when it expires.
//!
//! Costs: Reno and NewReno do O(1) work per ACK and per segment; SACK adds O(log n) per block and O(n) for
//! `IsLost`/`SetPipe`, n being the number of SACKed ranges (holes), never bytes or segments.

mod config;
mod ranges;
mod scoreboard;
mod segment;
pub mod sender;
pub mod sink;

#[cfg(test)]
mod acceptance;
#[cfg(test)]
mod sender_tests;
#[cfg(test)]
mod testnet;

pub use config::{TcpConfig, TcpVariant};
pub use segment::{TcpSegment, HEADER_BYTES, MAX_SACK_BLOCKS};
pub use sender::{TcpSender, TcpSenderStats};
pub use sink::TcpSink;
