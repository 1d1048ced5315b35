//! TEMPORARY compile stub (not committed).
#![allow(missing_docs, unused)]
use convoy_proto::Instant;
use std::time::Duration;
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpSegment { pub seq: u64, pub len: u32, pub ack: u64, pub is_ack: bool, pub sack: [(u64, u64); 3], pub sack_count: u8 }
impl TcpSegment { pub fn wire_bytes(&self) -> u32 { self.len + 40 } }
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpVariant { Reno, NewReno, Sack }
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig { pub variant: TcpVariant, pub mss: u32, pub initial_window: u32, pub initial_ssthresh: u64, pub min_rto: Duration, pub initial_rto: Duration, pub max_rto: Duration, pub delayed_ack: bool, pub delayed_ack_timeout: Duration, pub dupack_threshold: u32, pub max_cwnd: Option<u64> }
impl Default for TcpConfig { fn default() -> Self { TcpConfig { variant: TcpVariant::NewReno, mss: 1460, initial_window: 2, initial_ssthresh: u64::MAX, min_rto: Duration::from_secs(1), initial_rto: Duration::from_secs(1), max_rto: Duration::from_secs(60), delayed_ack: false, delayed_ack_timeout: Duration::from_millis(200), dupack_threshold: 3, max_cwnd: None } } }
#[derive(Debug, Default)] pub struct TcpSenderStats { pub timeouts: u64 }
#[derive(Debug)] pub struct TcpSender { s: TcpSenderStats }
impl TcpSender { pub fn new(c: TcpConfig, now: Instant) -> Self { todo!() } pub fn set_bytes_to_send(&mut self, l: Option<u64>) {} pub fn stop(&mut self) {}
 pub fn on_ack(&mut self, now: Instant, a: &TcpSegment) {} pub fn handle_timeout(&mut self, now: Instant) {} pub fn poll_segment(&mut self, now: Instant) -> Option<TcpSegment> { None }
 pub fn poll_timeout(&self) -> Option<Instant> { None } pub fn stats(&self) -> &TcpSenderStats { &self.s } }
#[derive(Debug)] pub struct TcpSink;
impl TcpSink { pub fn new(c: &TcpConfig) -> Self { TcpSink } pub fn on_segment(&mut self, now: Instant, s: &TcpSegment) {} pub fn poll_ack(&mut self, now: Instant) -> Option<TcpSegment> { None }
 pub fn poll_timeout(&self) -> Option<Instant> { None } pub fn handle_timeout(&mut self, now: Instant) {} pub fn delivered_bytes(&self) -> u64 { 0 } }
