//! Rate-limited log lines for packets a keyed session refused (`convoy_proto::auth`): a forger on the network
//! must not flood the terminal, yet every source address that was refused is named.

use convoy_proto::auth::AuthError;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// One line per address at most this often (the first refusal is always logged).
pub const LOG_INTERVAL: Duration = Duration::from_secs(5);
/// Addresses tracked one by one; refusals from further addresses are counted together.
pub const MAX_ADDRESSES: usize = 1024;

/// Refusals per source address, and when each was last logged.
#[derive(Debug, Default)]
pub struct RefusalLog {
    by_address: BTreeMap<IpAddr, (u64, u64, Option<Instant>)>,
    others: u64,
    total: u64,
    last: Option<(IpAddr, AuthError)>,
}

impl RefusalLog {
    /// Note a refusal at `now`; a line to show when one is due.
    pub fn note(&mut self, from: IpAddr, reason: AuthError, now: Instant) -> Option<String> {
        self.total += 1;
        self.last = Some((from, reason.clone()));
        if !self.by_address.contains_key(&from) && self.by_address.len() >= MAX_ADDRESSES {
            self.others += 1;
            return (self.others == 1).then(|| {
                format!(
                    "refused a packet from {from} ({reason}); more addresses are counted together"
                )
            });
        }
        let (count, since_logged, logged) = self.by_address.entry(from).or_default();
        *count += 1;
        *since_logged += 1;
        if logged.is_some_and(|t| now.duration_since(t) < LOG_INTERVAL) {
            return None;
        }
        let line = if *count == 1 {
            format!("refused a packet from {from}: {reason}")
        } else {
            format!(
                "refused {since_logged} more packets from {from} ({count} in all), last: {reason}"
            )
        };
        *logged = Some(now);
        *since_logged = 0;
        Some(line)
    }

    /// Packets refused in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The last refusal: where it came from and why.
    pub fn last(&self) -> Option<&(IpAddr, AuthError)> {
        self.last.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn the_first_refusal_is_logged_then_one_line_per_interval() {
        let mut log = RefusalLog::default();
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 66));
        let t = Instant::now();
        let first = log.note(a, AuthError::BadTag, t).unwrap();
        assert!(
            first.contains("10.0.0.66") && first.contains("tag"),
            "{first}"
        );
        for i in 0..1000 {
            assert!(log
                .note(a, AuthError::BadTag, t + Duration::from_millis(i))
                .is_none());
        }
        let later = log
            .note(a, AuthError::Replayed { counter: 4 }, t + LOG_INTERVAL)
            .unwrap();
        assert!(
            later.contains("1001 more") && later.contains("1002 in all"),
            "{later}"
        );
        assert_eq!(log.total(), 1002);
        assert_eq!(log.last().unwrap().1, AuthError::Replayed { counter: 4 });
    }
}
