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
pub struct TcpConfig { pub variant: TcpVariant }
#[derive(Debug, Default)] pub struct TcpSenderStats { pub timeouts: u64 }
#[derive(Debug)] pub struct TcpSender { s: TcpSenderStats }
impl TcpSender { pub fn new(c: TcpConfig, now: Instant) -> Self { todo!() } pub fn set_bytes_to_send(&mut self, l: Option<u64>) {} pub fn stop(&mut self) {}
 pub fn on_ack(&mut self, now: Instant, a: &TcpSegment) {} pub fn handle_timeout(&mut self, now: Instant) {} pub fn poll_segment(&mut self, now: Instant) -> Option<TcpSegment> { None }
 pub fn poll_timeout(&self) -> Option<Instant> { None } pub fn stats(&self) -> &TcpSenderStats { &self.s } }
#[derive(Debug)] pub struct TcpSink;
impl TcpSink { pub fn new(c: &TcpConfig) -> Self { TcpSink } pub fn on_segment(&mut self, now: Instant, s: &TcpSegment) {} pub fn poll_ack(&mut self, now: Instant) -> Option<TcpSegment> { None }
 pub fn poll_timeout(&self) -> Option<Instant> { None } pub fn handle_timeout(&mut self, now: Instant) {} pub fn delivered_bytes(&self) -> u64 { 0 } }
