//! Quantities written as people write them: rates ("500kbit", "2Mbit/s", "20KB/s"), durations ("50ms", "1.5s",
//! "2min"), byte sizes ("1500B", "30KB", "64KiB") and queue or window sizes that may also count packets ("30pkt").
//!
//! A bare number is rejected wherever a unit is needed, with a message that shows how to write it: a scenario
//! that says `delay = 50` could mean seconds or milliseconds, and a simulator must not guess.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use std::time::Duration;

/// Split "1.5 Mbit" into (1.5, "Mbit"). The number may have a fraction and an exponent.
fn split(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || ((c == 'e' || c == 'E')
                    && s[i + 1..].starts_with(|n: char| n.is_ascii_digit() || n == '-'))
                || ((c == '-' || c == '+') && i > 0 && matches!(s.as_bytes()[i - 1], b'e' | b'E')))
        })
        .map_or(s.len(), |(i, _)| i);
    let (num, unit) = s.split_at(end);
    if num.is_empty() {
        return Err(format!("`{s}` does not start with a number"));
    }
    let v: f64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{num}` is not a number"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("`{s}` must be a finite, non-negative quantity"));
    }
    Ok((v, unit.trim()))
}

/// A link or application rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl Rate {
    /// Units accepted, for error messages.
    pub const UNITS: &'static str =
        "bit, kbit, Mbit, Gbit (also bps, kbps, Mbps, Gbps, kbit/s, ...) or \
                                      bytes per second: B/s, kB/s, MB/s, KiB/s";

    /// Parse "500kbit".
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (v, unit) = split(s)?;
        let u = unit.strip_suffix("/s").unwrap_or(unit);
        let bits_per = |prefix: &str| -> Option<f64> {
            match prefix {
                "" => Some(1.0),
                "k" | "K" => Some(1e3),
                "m" | "M" => Some(1e6),
                "g" | "G" => Some(1e9),
                _ => None,
            }
        };
        let factor = if let Some(p) = u.strip_suffix("bit").or_else(|| u.strip_suffix("bps")) {
            bits_per(p)
        } else if unit.ends_with("/s") {
            // Bytes per second: "20KB/s", "1.5MB/s", "64KiB/s".
            match u {
                "B" => Some(8.0),
                "kB" | "KB" => Some(8e3),
                "MB" => Some(8e6),
                "GB" => Some(8e9),
                "KiB" => Some(8.0 * 1024.0),
                "MiB" => Some(8.0 * 1024.0 * 1024.0),
                _ => None,
            }
        } else {
            None
        };
        match factor {
            Some(f) if !unit.is_empty() => Ok(Rate((v * f).round() as u64)),
            _ if unit.is_empty() => Err(format!(
                "rate `{s}` needs a unit: write e.g. \"{s}kbit\" ({})",
                Rate::UNITS
            )),
            _ => {
                // A bare prefix ("20M") is the usual slip: say which rate that would be.
                let num = s.trim().strip_suffix(unit).unwrap_or(s).trim();
                let hint = match unit {
                    "k" | "K" => format!(" (bits per second: \"{num}kbit\")"),
                    "m" | "M" => format!(" (bits per second: \"{num}Mbit\")"),
                    "g" | "G" => format!(" (bits per second: \"{num}Gbit\")"),
                    _ => String::new(),
                };
                Err(format!(
                    "unknown rate unit `{unit}` in `{s}`{hint}; use {}",
                    Rate::UNITS
                ))
            }
        }
    }

    /// Bytes per second (rounded down).
    pub fn bytes_per_s(self) -> u64 {
        self.0 / 8
    }
}

/// A duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dur(pub Duration);

impl Dur {
    /// Units accepted, for error messages.
    pub const UNITS: &'static str = "ns, us, ms, s, min, h";

    /// Parse "50ms".
    pub fn parse(s: &str) -> Result<Dur, String> {
        let (v, unit) = split(s)?;
        let nanos_per = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" | "sec" => 1e9,
            "min" => 60e9,
            "h" => 3600e9,
            "" => {
                return Err(format!(
                    "duration `{s}` needs a unit: write e.g. \"{s}s\" or \"{s}ms\" ({})",
                    Dur::UNITS
                ))
            }
            _ => {
                let num = s.trim().strip_suffix(unit).unwrap_or(s).trim();
                let hint = if unit == "m" {
                    format!(" (\"{num}min\" for minutes, \"{num}ms\" for milliseconds)")
                } else {
                    String::new()
                };
                return Err(format!(
                    "unknown duration unit `{unit}` in `{s}`{hint}; use {}",
                    Dur::UNITS
                ));
            }
        };
        let n = v * nanos_per;
        if n > u64::MAX as f64 {
            return Err(format!("duration `{s}` is too long"));
        }
        Ok(Dur(Duration::from_nanos(n.round() as u64)))
    }
}

/// A byte count (never packets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

fn byte_factor(unit: &str) -> Option<f64> {
    match unit {
        "B" | "byte" | "bytes" => Some(1.0),
        "kB" | "KB" => Some(1e3),
        "MB" => Some(1e6),
        "GB" => Some(1e9),
        "KiB" => Some(1024.0),
        "MiB" => Some(1024.0 * 1024.0),
        "GiB" => Some(1024.0 * 1024.0 * 1024.0),
        _ => None,
    }
}

const BYTE_UNITS: &str = "B, kB (= KB = 1000 B), MB, GB, KiB, MiB, GiB";

impl Bytes {
    /// Parse "1500B".
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (v, unit) = split(s)?;
        match byte_factor(unit) {
            Some(f) => Ok(Bytes((v * f).round() as u64)),
            None if unit.is_empty() => Err(format!(
                "size `{s}` needs a unit: write e.g. \"{s}B\" ({BYTE_UNITS})"
            )),
            None if is_packets(unit) => Err(format!(
                "`{s}`: this size is in bytes, not packets ({BYTE_UNITS})"
            )),
            None => Err(format!(
                "unknown size unit `{unit}` in `{s}`; use {BYTE_UNITS}"
            )),
        }
    }
}

fn is_packets(unit: &str) -> bool {
    matches!(unit, "pkt" | "pkts" | "packet" | "packets" | "p")
}

/// A size in packets or in bytes: queue limits, TCP windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// "30pkt".
    Packets(u64),
    /// "30KB".
    Bytes(u64),
}

impl Size {
    /// Parse "30pkt" or "30KB".
    pub fn parse(s: &str) -> Result<Size, String> {
        let (v, unit) = split(s)?;
        if is_packets(unit) {
            if v.fract() != 0.0 {
                return Err(format!("`{s}`: a packet count must be a whole number"));
            }
            return Ok(Size::Packets(v as u64));
        }
        match byte_factor(unit) {
            Some(f) => Ok(Size::Bytes((v * f).round() as u64)),
            None if unit.is_empty() => Err(format!(
                "size `{s}` needs a unit: \"{s}pkt\" (packets) or \"{s}KB\" (bytes: {BYTE_UNITS})"
            )),
            None => Err(format!(
                "unknown size unit `{unit}` in `{s}`; use pkt (packets) or {BYTE_UNITS}"
            )),
        }
    }
}

/// A byte count that may also be written as a bare integer (TCP's MSS, conventionally a plain number of bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainBytes(pub u64);

macro_rules! string_quantity {
    ($ty:ident, $what:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", $what, " with its unit, as a string"))
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        // Let the string parser explain which unit is missing.
                        match $ty::parse(&v.to_string()) {
                            Err(m) => Err(E::custom(m)),
                            Ok(_) => unreachable!("a bare number never parses"),
                        }
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        match $ty::parse(&v.to_string()) {
                            Err(m) => Err(E::custom(m)),
                            Ok(_) => unreachable!("a bare number never parses"),
                        }
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

string_quantity!(Rate, "rate");
string_quantity!(Dur, "duration");
string_quantity!(Bytes, "byte size");
string_quantity!(Size, "size in pkt or bytes");

impl<'de> Deserialize<'de> for PlainBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PlainBytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of bytes (1460 or \"1460B\")")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<PlainBytes, E> {
                Bytes::parse(s).map(|b| PlainBytes(b.0)).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PlainBytes, E> {
                u64::try_from(v)
                    .map(PlainBytes)
                    .map_err(|_| E::custom("a byte count cannot be negative"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<PlainBytes, E> {
                Ok(PlainBytes(v))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(Rate::parse("500kbit"), Ok(Rate(500_000)));
        assert_eq!(Rate::parse("2Mbit"), Ok(Rate(2_000_000)));
        assert_eq!(Rate::parse("10Mbps"), Ok(Rate(10_000_000)));
        assert_eq!(Rate::parse("1.5 Gbit/s"), Ok(Rate(1_500_000_000)));
        assert_eq!(Rate::parse("64kbps"), Ok(Rate(64_000)));
        assert_eq!(Rate::parse("300bit"), Ok(Rate(300)));
        assert_eq!(Rate::parse("20KB/s"), Ok(Rate(160_000)));
        assert_eq!(Rate::parse("1KiB/s"), Ok(Rate(8192)));
        assert!(Rate::parse("500").unwrap_err().contains("needs a unit"));
        assert!(Rate::parse("500kb")
            .unwrap_err()
            .contains("unknown rate unit `kb`"));
        assert!(Rate::parse("fast")
            .unwrap_err()
            .contains("does not start with a number"));
        assert!(Rate::parse("-5kbit").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(Dur::parse("50ms"), Ok(Dur(Duration::from_millis(50))));
        assert_eq!(Dur::parse("1.5s"), Ok(Dur(Duration::from_millis(1500))));
        assert_eq!(Dur::parse("400s"), Ok(Dur(Duration::from_secs(400))));
        assert_eq!(Dur::parse("2min"), Ok(Dur(Duration::from_secs(120))));
        assert_eq!(Dur::parse("10us"), Ok(Dur(Duration::from_micros(10))));
        assert_eq!(Dur::parse("1e-3s"), Ok(Dur(Duration::from_millis(1))));
        assert!(Dur::parse("50").unwrap_err().contains("needs a unit"));
        assert!(Dur::parse("5m")
            .unwrap_err()
            .contains("unknown duration unit `m`"));
    }

    #[test]
    fn sizes() {
        assert_eq!(Size::parse("30pkt"), Ok(Size::Packets(30)));
        assert_eq!(Size::parse("30KB"), Ok(Size::Bytes(30_000)));
        assert_eq!(Size::parse("30kB"), Ok(Size::Bytes(30_000)));
        assert_eq!(Size::parse("1500B"), Ok(Size::Bytes(1500)));
        assert_eq!(Size::parse("1MB"), Ok(Size::Bytes(1_000_000)));
        assert_eq!(Size::parse("64KiB"), Ok(Size::Bytes(65_536)));
        assert!(Size::parse("30").unwrap_err().contains("needs a unit"));
        assert!(Size::parse("2.5pkt").is_err());
        assert_eq!(Bytes::parse("10MB"), Ok(Bytes(10_000_000)));
        assert!(Bytes::parse("10pkt").unwrap_err().contains("not packets"));
    }

    #[test]
    fn bare_numbers_are_explained() {
        #[derive(Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            d: Dur,
        }
        let e = toml::from_str::<T>("d = 50").unwrap_err();
        assert!(e.message().contains("needs a unit"), "{e}");
    }
}
