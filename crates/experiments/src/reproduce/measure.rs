//! Measurements verdicts are made of: means over time windows, acker shares, switch counts.

/// Mean of the per-interval series `bins` (bin i covers [i·w, (i+1)·w)) over the bins inside [from, to).
pub fn mean(bins: &[f64], interval_s: f64, from: f64, to: f64) -> f64 {
    let first = (from / interval_s).ceil().max(0.0) as usize;
    let last = ((to / interval_s).floor() as usize).min(bins.len());
    if last <= first {
        return 0.0;
    }
    bins[first..last].iter().sum::<f64>() / (last - first) as f64
}

/// Means of consecutive windows of `width` seconds over [from, to).
pub fn window_means(
    bins: &[f64],
    interval_s: f64,
    from: f64,
    to: f64,
    width: f64,
) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut t = from;
    while t + width <= to + 1e-9 {
        out.push((t, mean(bins, interval_s, t, t + width)));
        t += width;
    }
    out
}

/// The acker over time from the switch list: (time, new acker name or `None` while electing).
/// Returns the fraction of [from, to) during which `name` (or any receiver whose name starts with it when
/// `prefix` is set) was the acker.
pub fn acker_share(
    switches: &[(f64, Option<String>)],
    name: &str,
    prefix: bool,
    from: f64,
    to: f64,
) -> f64 {
    let matches = |n: &Option<String>| match n {
        Some(n) if prefix => n.starts_with(name),
        Some(n) => n == name,
        None => false,
    };
    let mut total = 0.0;
    let mut current: Option<String> = None;
    let mut since = 0.0f64;
    let mut account = |cur: &Option<String>, a: f64, b: f64| {
        let (a, b) = (a.max(from), b.min(to));
        if b > a && matches(cur) {
            total += b - a;
        }
    };
    for (t, to_name) in switches {
        account(&current, since, *t);
        current = to_name.clone();
        since = *t;
    }
    account(&current, since, to);
    if to > from {
        total / (to - from)
    } else {
        0.0
    }
}

/// Acker switches (changes between two named receivers) within [from, to), optionally only those between
/// the two names given (in either direction).
pub fn switch_count(
    switches: &[(f64, Option<String>)],
    from: f64,
    to: f64,
    between: Option<(&str, &str)>,
) -> usize {
    let mut prev: Option<&str> = None;
    let mut n = 0;
    for (t, name) in switches {
        let Some(name) = name.as_deref() else {
            continue;
        };
        if let Some(p) = prev {
            let counted = match between {
                None => true,
                Some((a, b)) => (p == a && name == b) || (p == b && name == a),
            };
            if counted && *t >= from && *t < to && p != name {
                n += 1;
            }
        }
        prev = Some(name);
    }
    n
}

/// Acker switches within [from, to) that take the role away from `name`, to whichever receiver (elections in
/// progress skipped: the change counts when the next acker is named).
pub fn switches_away(switches: &[(f64, Option<String>)], name: &str, from: f64, to: f64) -> usize {
    let mut prev: Option<&str> = None;
    let mut n = 0;
    for (t, next) in switches {
        let Some(next) = next.as_deref() else {
            continue;
        };
        if prev == Some(name) && next != name && *t >= from && *t < to {
            n += 1;
        }
        prev = Some(next);
    }
    n
}

/// Mean of samples (t, v) with t in [from, to).
pub fn sample_mean(samples: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
    let v: Vec<f64> = samples
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .map(|(_, v)| *v)
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Mean and coefficient of variation (standard deviation / mean) of the bins of `bins` (bin i covers
/// [i·w, (i+1)·w)) lying wholly inside [from, to); `None` when there are none. A zero mean gives an infinite CoV.
pub fn mean_and_cov(bins: &[f64], interval_s: f64, from: f64, to: f64) -> Option<(f64, f64)> {
    let inside: Vec<f64> = bins
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as f64 * interval_s >= from && (*i + 1) as f64 * interval_s <= to)
        .map(|(_, v)| *v)
        .collect();
    if inside.is_empty() {
        return None;
    }
    let n = inside.len() as f64;
    let mean = inside.iter().sum::<f64>() / n;
    let var = inside.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Some((
        mean,
        if mean > 0.0 {
            var.sqrt() / mean
        } else {
            f64::INFINITY
        },
    ))
}

/// Format bit/s as kbit/s.
pub fn kbps(bps: f64) -> String {
    format!("{:.0} kbit/s", bps / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_shares() {
        let bins = vec![1.0, 2.0, 3.0, 4.0];
        assert_eq!(mean(&bins, 1.0, 1.0, 3.0), 2.5);
        assert_eq!(mean(&bins, 1.0, 0.5, 10.0), 3.0);
        let sw = vec![
            (1.0, Some("a".to_string())),
            (3.0, Some("b".to_string())),
            (4.0, Some("a".to_string())),
        ];
        assert!((acker_share(&sw, "a", false, 0.0, 5.0) - 0.6).abs() < 1e-12);
        assert!((acker_share(&sw, "b", false, 2.0, 4.0) - 0.5).abs() < 1e-12);
        assert_eq!(switch_count(&sw, 0.0, 10.0, None), 2);
        assert_eq!(switch_count(&sw, 0.0, 3.5, Some(("a", "b"))), 1);
        assert_eq!(switches_away(&sw, "a", 0.0, 10.0), 1);
        assert_eq!(switches_away(&sw, "b", 0.0, 10.0), 1);
        assert_eq!(switches_away(&sw, "b", 0.0, 3.5), 0);
        let through_election = vec![
            (1.0, Some("a".to_string())),
            (2.0, None),
            (2.0, Some("c".to_string())),
        ];
        assert_eq!(switches_away(&through_election, "a", 0.0, 10.0), 1);
        let (m, cov) = mean_and_cov(&bins, 1.0, 1.0, 3.0).unwrap();
        assert!(
            (m - 2.5).abs() < 1e-12 && (cov - 0.2).abs() < 1e-12,
            "{m} {cov}"
        );
        assert_eq!(mean_and_cov(&bins, 1.0, 1.2, 1.9), None);
    }
}
