//! What a process reads about itself from Linux's /proc: resident memory and CPU time, for the simulator
//! benchmark's children.

/// A `VmXXX:` line of /proc/self/status (`VmRSS`, `VmHWM`), in bytes; `None` where /proc is missing.
pub fn vm_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm(&status, field)
}

fn parse_vm(status: &str, field: &str) -> Option<u64> {
    let line = status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    let mut words = line[field.len() + 1..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(n * 1024),
        _ => None,
    }
}

/// CPU time the process (one thread: the simulator's) has used, in seconds: /proc/self/schedstat's time on a
/// CPU (nanoseconds), else utime + stime of /proc/self/stat (clock ticks of 1/100 s, Linux's USER_HZ).
pub fn cpu_seconds() -> Option<f64> {
    if let Some(ns) = std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
    {
        return Some(ns as f64 / 1e9);
    }
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_ticks(&stat).map(|t| t as f64 / 100.0)
}

/// utime + stime (fields 14 and 15) of a /proc/PID/stat line; the command name (field 2) may hold spaces.
fn parse_stat_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // fields[0] is field 3 (state), so field n is fields[n - 3].
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields() {
        let s = "Name:\tconvoy\nVmHWM:\t  102628 kB\nVmRSS:\t   98000 kB\n";
        assert_eq!(parse_vm(s, "VmHWM"), Some(102_628 * 1024));
        assert_eq!(parse_vm(s, "VmRSS"), Some(98_000 * 1024));
        assert_eq!(parse_vm(s, "VmSwap"), None);
    }

    #[test]
    fn stat_ticks() {
        let s = "4242 (con voy) R 1 2 3 4 5 6 7 8 9 10 250 30 0 0 20 0 1 0";
        assert_eq!(parse_stat_ticks(s), Some(280));
    }

    #[test]
    fn reads_this_process() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(vm_bytes("VmHWM").unwrap() >= vm_bytes("VmRSS").unwrap() / 2);
            assert!(cpu_seconds().is_some());
        }
    }
}
