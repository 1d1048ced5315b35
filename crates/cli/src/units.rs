//! Parsing of rates and durations on the command line.

use std::time::Duration;

/// A rate in bits per second: `20M`, `1.5G`, `800k`, `20Mbit`, `100000` (k, M, G are powers of 1000).
pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower
        .strip_suffix("bit/s")
        .or_else(|| lower.strip_suffix("bps"))
        .or_else(|| lower.strip_suffix("bit"))
        .unwrap_or(&lower);
    let (num, mult) = match body.chars().last() {
        Some('k') => (&body[..body.len() - 1], 1e3),
        Some('m') => (&body[..body.len() - 1], 1e6),
        Some('g') => (&body[..body.len() - 1], 1e9),
        _ => (body, 1.0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a rate (examples: 20M, 1.5G, 800k bits per second)"))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(format!("{s:?}: the rate must be positive"));
    }
    Ok((v * mult).round() as u64)
}

/// A duration: `10s`, `500ms`, `2m`, `1h`, or plain seconds (`2.5`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (examples: 10s, 500ms, 2m)"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(format!("{s:?}: the duration must not be negative"));
    }
    Ok(Duration::from_secs_f64(v * mult))
}

/// A byte count with its unit, as in scenario files: `64MiB`, `500MB`, `0B`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    convoy_cli::scenario::units::Bytes::parse(s).map(|b| b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate_bps("20M").unwrap(), 20_000_000);
        assert_eq!(parse_rate_bps("1.5G").unwrap(), 1_500_000_000);
        assert_eq!(parse_rate_bps("800kbit").unwrap(), 800_000);
        assert_eq!(parse_rate_bps("64000").unwrap(), 64_000);
        assert!(parse_rate_bps("fast").is_err());
        assert!(parse_rate_bps("0").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("2.5").unwrap(), Duration::from_millis(2500));
        assert!(parse_duration("soon").is_err());
    }
}
