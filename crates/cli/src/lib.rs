//! The library behind the `convoy` command: scenario files and the `convoy sim` run with its outputs
//! (summary.json, CSV series, SVG plots, pcap), and `convoy bench sim`. The binary (`main.rs`) only parses arguments.

pub mod bench;
pub mod reproduce;
pub mod scenario;
pub mod simrun;
