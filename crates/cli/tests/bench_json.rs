//! `convoy bench sim --json` prints one JSON object with the fields. The benchmark's speed is never
//! asserted in tests; the full run (`convoy bench sim`, about 20 minutes) is not part of them.

use serde_json::Value;
use std::process::Command;

#[test]
fn bench_sim_only_dumbbell_1_prints_one_json_object() {
    let out = Command::new(env!("CARGO_BIN_EXE_convoy"))
        .args(["bench", "sim", "--only", "dumbbell-1", "--json"])
        .output()
        .expect("run convoy");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    // Exactly one object: the whole of stdout parses.
    let v: Value = serde_json::from_str(&text).expect("one JSON object");
    let list = v["scenarios"].as_array().expect("scenarios");
    assert_eq!(list.len(), 1);
    let s = &list[0];
    assert_eq!(s["name"], "dumbbell-1");
    for key in [
        "sim_s",
        "wall_s",
        "events",
        "packets_forwarded",
        "utilization",
        "jain",
        "peak_rss_bytes",
    ] {
        assert!(s[key].is_number(), "`{key}` in {s}");
    }
    assert_eq!(s["sim_s"].as_f64(), Some(100.0));
    assert!(s["events"].as_u64().unwrap() > 100_000);
    assert!(s["packets_forwarded"].as_u64().unwrap() > 100_000);
    let u = s["utilization"].as_f64().unwrap();
    assert!((0.9..=1.0).contains(&u), "utilisation {u}");
    assert_eq!(s["jain"].as_f64(), Some(1.0));
}
