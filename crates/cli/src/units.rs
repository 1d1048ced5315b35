//! Rates, durations and sizes on the command line: the same grammar and parser as scenario files
//! ([`convoy_experiments::scenario::units`]), so `--wait 2min` and `wait = "2min"` mean the same and `2m` is refused in
//! both places with the units that would be accepted.

use convoy_experiments::scenario::units::{Bytes, Dur, Rate};
use std::time::Duration;

/// A rate in bits per second, with its unit: `20Mbit`, `1.5Gbit`, `800kbit`, `2MB/s`.
pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    match Rate::parse(s)? {
        Rate(0) => Err(format!("rate `{s}` must be positive")),
        Rate(bps) => Ok(bps),
    }
}

/// A duration, with its unit: `10s`, `500ms`, `2min`, `1h`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    Dur::parse(s).map(|d| d.0)
}

/// A byte count with its unit, as in scenario files: `64MiB`, `500MB`, `0B`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    Bytes::parse(s).map(|b| b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate_bps("20Mbit").unwrap(), 20_000_000);
        assert_eq!(parse_rate_bps("1.5Gbit").unwrap(), 1_500_000_000);
        assert_eq!(parse_rate_bps("800kbit").unwrap(), 800_000);
        assert_eq!(parse_rate_bps("2MB/s").unwrap(), 16_000_000);
        let bare = parse_rate_bps("64000").unwrap_err();
        assert!(bare.contains("`64000`") && bare.contains("kbit"), "{bare}");
        let m = parse_rate_bps("20M").unwrap_err();
        assert!(m.contains("`20M`") && m.contains("20Mbit"), "{m}");
        assert!(parse_rate_bps("0bit").is_err());
    }

    #[test]
    fn durations_as_in_scenarios() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        let m = parse_duration("2m").unwrap_err();
        assert!(m.contains("`2m`") && m.contains("2min"), "{m}");
        assert!(parse_duration("2.5").unwrap_err().contains("needs a unit"));
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_bytes("0B").unwrap(), 0);
        assert!(parse_bytes("64").unwrap_err().contains("needs a unit"));
    }
}
