//! `convoy send --status-file` and `--metrics` (send and recv) on loopback: while the transfer runs the file is
//! rewritten, always whole, with progress that only grows and the receiver the controller follows, and the
//! metrics pages parse with figures that only grow; at the end both agree with `--stats-json`.
//! Source on 127.0.0.1, receivers on 127.0.0.2 and .3, TTL 0: nothing leaves the host.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod common;

use common::{bytes, loopback_recv, loopback_send, wait, Guard, Scratch};

fn group() -> String {
    let port = 29_000 + (std::process::id() % 2_000) as u16;
    format!("239.255.79.{}:{port}", (port % 250) + 1)
}

/// The figures of an OpenMetrics page, by series (`name{labels}`); `None` while nothing listens, or when the
/// scrape raced the endpoint's close (tiny_http answers a request it accepted but was not handed over with an
/// empty 500 when the server stops).
fn scrape(addr: &str) -> Option<BTreeMap<String, f64>> {
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    write!(s, "GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut reply = String::new();
    s.read_to_string(&mut reply).ok()?;
    let (head, body) = reply.split_once("\r\n\r\n")?;
    if head.contains(" 500 ") && body.is_empty() {
        return None;
    }
    assert!(head.contains(" 200 "), "{head}");
    assert!(body.ends_with("# EOF\n"), "a page is whole: {body}");
    let mut figures = BTreeMap::new();
    for line in body.lines().filter(|l| !l.starts_with('#')) {
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("a sample line: {line}"));
        let value: f64 = value
            .parse()
            .unwrap_or_else(|e| panic!("{line}: value {e}"));
        figures.insert(series.to_string(), value);
    }
    Some(figures)
}

/// The values of `series` in order, where the page had it.
fn series(pages: &[BTreeMap<String, f64>], series: &str) -> Vec<f64> {
    pages
        .iter()
        .filter_map(|p| p.get(series).copied())
        .collect()
}

fn grows(values: &[f64]) -> bool {
    values.windows(2).all(|w| w[0] <= w[1])
}

#[test]
fn the_status_file_follows_a_send_and_ends_as_its_statistics() {
    let dir = Scratch::new("send-status");
    let g = group();
    let file = dir.0.join("f.bin");
    fs::write(&file, bytes(5, 6_000_000)).unwrap();
    let outs: Vec<PathBuf> = (0..2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let port = 31_000 + (std::process::id() % 2_000) as u16;
    let (send_metrics, recv_metrics) = (format!("127.0.0.1:{port}"), format!("127.0.0.2:{port}"));
    let recv_stats = dir.0.join("recv-stats.json");
    let mut rx: Vec<Guard> = (0..2)
        .map(|i| {
            let mut args = vec!["--start-timeout", "60s"];
            if i == 0 {
                let stats = recv_stats.to_str().unwrap();
                args.extend(["--metrics", &recv_metrics, "--stats-json", stats]);
            }
            Guard(Some(loopback_recv(&g, 2 + i as u8, &outs[i], &args)))
        })
        .collect();
    let status = dir.0.join("status.json");
    let stats = dir.0.join("stats.json");
    // 6 MB at no more than 16 Mbit/s: at least 3 s of status.
    let tx = loopback_send(
        &g,
        &file,
        &[
            "--wait-receivers",
            "2",
            "--wait",
            "30s",
            "--rate-max",
            "16Mbit",
            "--status-file",
            status.to_str().unwrap(),
            "--stats-json",
            stats.to_str().unwrap(),
            "--metrics",
            &send_metrics,
        ],
    );
    let mut seen: Vec<serde_json::Value> = Vec::new();
    let (mut send_pages, mut recv_pages) = (Vec::new(), Vec::new());
    let mut tx = Guard(Some(tx));
    let started = Instant::now();
    while tx.0.as_mut().unwrap().try_wait().unwrap().is_none()
        && started.elapsed() < Duration::from_secs(120)
    {
        if let Ok(text) = fs::read_to_string(&status) {
            let v: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("a status file read whole parses: {e}\n{text}"));
            if seen.last() != Some(&v) {
                seen.push(v);
            }
        }
        send_pages.extend(scrape(&send_metrics));
        recv_pages.extend(scrape(&recv_metrics));
        std::thread::sleep(Duration::from_millis(150));
    }
    let done = wait(tx.take(), Duration::from_secs(5));
    assert!(
        done.status.success(),
        "send: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    for r in &mut rx {
        let out = wait(r.take(), Duration::from_secs(60));
        assert!(
            out.status.success(),
            "recv: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        seen.len() >= 3,
        "the status was rewritten while the send ran: {} versions",
        seen.len()
    );
    let bytes_seen: Vec<u64> = seen.iter().map(|v| v["bytes"].as_u64().unwrap()).collect();
    assert!(
        bytes_seen.windows(2).all(|w| w[0] <= w[1]),
        "progress only grows: {bytes_seen:?}"
    );
    let receivers = ["127.0.0.2", "127.0.0.3"];
    let limiting: Vec<&str> = seen
        .iter()
        .filter_map(|v| v["limiting"]["addr"].as_str())
        .collect();
    assert!(!limiting.is_empty(), "the limiting receiver is named");
    assert!(
        limiting.iter().all(|a| receivers.contains(a)),
        "{limiting:?}"
    );
    let last = fs::read_to_string(&status).unwrap();
    let last: serde_json::Value = serde_json::from_str(&last).unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(
        last["bytes"], stats["bytes"],
        "the last status has the statistics' bytes"
    );
    assert_eq!(last["transfer_id"], stats["transfer_id"]);
    let states: Vec<&str> = last["receivers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["complete", "complete"], "{last}");
    assert!(!dir.0.join("status.json.tmp").exists());
    for out in &outs {
        assert!(fs::read(out.join("f.bin")).unwrap() == fs::read(&file).unwrap());
    }
    check_metrics(&send_pages, &recv_pages, &stats, &recv_stats);
}

/// The pages scraped while the transfer ran: figures that only grow and never pass the final statistics, the
/// limiting receiver named among the two, and each receiver's rate where the controller credits one.
fn check_metrics(
    send_pages: &[BTreeMap<String, f64>],
    recv_pages: &[BTreeMap<String, f64>],
    send_stats: &serde_json::Value,
    recv_stats: &std::path::Path,
) {
    let sent = series(send_pages, "convoy_send_bytes_total");
    assert!(
        sent.len() >= 3,
        "the send's page was scraped while it ran: {sent:?}"
    );
    assert!(grows(&sent), "{sent:?}");
    let final_bytes = send_stats["bytes"].as_f64().unwrap();
    assert!(
        sent.iter().all(|&b| b <= final_bytes),
        "{sent:?} against {final_bytes}"
    );
    let named: Vec<&String> = send_pages
        .iter()
        .flat_map(|p| p.keys())
        .filter(|k| k.starts_with("convoy_send_limiting_receiver{"))
        .collect();
    assert!(!named.is_empty(), "the limiting receiver is on the page");
    assert!(
        named
            .iter()
            .all(|k| k.contains("127.0.0.2") || k.contains("127.0.0.3")),
        "{named:?}"
    );
    assert!(
        send_pages
            .iter()
            .any(|p| p.contains_key("convoy_receiver_state{addr=\"127.0.0.3\",state=\"joined\"}")),
        "each receiver's state is on the page"
    );
    let received = series(recv_pages, "convoy_recv_bytes_total");
    assert!(
        received.len() >= 3,
        "the receiver's page was scraped while it ran: {received:?}"
    );
    assert!(grows(&received), "{received:?}");
    let recv_stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(recv_stats).unwrap()).unwrap();
    let recv_bytes = recv_stats["bytes"].as_f64().unwrap();
    assert!(
        received.iter().all(|&b| b <= recv_bytes),
        "{received:?} against {recv_bytes}"
    );
    assert_eq!(
        series(recv_pages, "convoy_recv_total_bytes").last(),
        Some(&recv_bytes)
    );
}
