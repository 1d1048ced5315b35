//! verdicts.json and index.html: one page a person reads in a browser, offline (figures are SVG files beside it).

use super::verdict::{Check, Status, Verdict};
use std::fmt::Write as _;
use std::path::Path;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2.2em;border-bottom:1px solid #ccc;padding-bottom:.2em}\
table{border-collapse:collapse;width:100%;margin:.6em 0}td,th{border:1px solid #ddd;padding:.3em .5em;\
text-align:left;vertical-align:top;font-size:.92em}th{background:#f4f4f4}.pass{color:#fff;background:#2a8c3a;\
padding:.1em .5em;border-radius:3px;font-weight:bold}.fail{color:#fff;background:#c0392b;padding:.1em .5em;\
border-radius:3px;font-weight:bold}.reported{color:#fff;background:#7f8c8d;padding:.1em .5em;border-radius:3px;\
font-weight:bold}.claim{font-style:italic}.note{background:#fff8e1;border-left:4px solid \
#f1c40f;padding:.5em .8em}img{max-width:100%;border:1px solid #eee;margin:.4em 0}.small{color:#666;font-size:.9em}";

fn badge(status: Status) -> &'static str {
    match status {
        Status::Pass => "<span class=\"pass\">PASS</span>",
        Status::Fail => "<span class=\"fail\">FAIL</span>",
        Status::Reported => "<span class=\"reported\">REPORTED</span>",
    }
}

/// A check's badge: REPORTED for a number without a claim, else PASS or FAIL.
fn check_badge(c: &Check) -> &'static str {
    badge(match (c.reported, c.pass) {
        (true, _) => Status::Reported,
        (false, true) => Status::Pass,
        (false, false) => Status::Fail,
    })
}

/// Write `verdicts.json` and `index.html` into `out`.
pub fn write(out: &Path, verdicts: &[Verdict], wall_s: f64, seeds: u64) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(verdicts).map_err(|e| e.to_string())? + "\n";
    std::fs::write(out.join("verdicts.json"), json).map_err(|e| format!("verdicts.json: {e}"))?;
    let passed = verdicts.iter().filter(|v| v.pass).count();
    let reported = verdicts
        .iter()
        .filter(|v| v.status == Status::Reported)
        .count();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Convoy: reproduction report</title>\
         <style>{STYLE}</style></head><body><h1>Convoy: the seed papers' experiments, reproduced</h1>\
         <p>{passed} of {} verdicts pass with seeds 1..{seeds} (a verdict passes only if it passes for every seed; \
         {reported} only report numbers, with no claim that could fail, and show REPORTED). \
         Ranges are those of docs/experiments.md; measured values are from seed 1. Run time {:.0} s.</p>\
         <table><tr><th>experiment</th><th>claim</th><th>verdict</th><th>seeds passed</th></tr>",
        verdicts.len(),
        wall_s
    );
    for v in verdicts {
        let _ = write!(
            h,
            "<tr><td><a href=\"#{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}/{}</td></tr>",
            esc(&v.claim),
            badge(v.status),
            v.seeds.passed,
            v.seeds.run,
            id = esc(&v.id)
        );
    }
    h.push_str("</table>");
    for v in verdicts {
        let _ = write!(
            h,
            "<h2 id=\"{id}\">{id} {}</h2><p class=\"small\">Source: {}</p><p class=\"claim\">{}</p>\
             <table><tr><th>check</th><th>expected</th><th>measured (seed 1)</th><th></th></tr>",
            badge(v.status),
            esc(&v.source),
            esc(&v.claim),
            id = esc(&v.id)
        );
        for c in &v.checks {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&c.what),
                esc(&c.expected),
                esc(&c.measured),
                check_badge(c)
            );
        }
        h.push_str("</table>");
        if !v.failures.is_empty() {
            h.push_str("<p><b>Failing seeds:</b></p><ul>");
            for f in &v.failures {
                let _ = write!(h, "<li>{}</li>", esc(f));
            }
            h.push_str("</ul>");
        }
        if !v.note.is_empty() {
            let _ = write!(
                h,
                "<div class=\"note\"><b>Finding:</b> {}</div>",
                esc(&v.note)
            );
        }
        for f in &v.figures {
            if f.ends_with(".html") {
                // A table an experiment generated: shown in place.
                let fragment =
                    std::fs::read_to_string(out.join(f)).map_err(|e| format!("{f}: {e}"))?;
                h.push_str(&fragment);
            } else {
                let _ = write!(
                    h,
                    "<div><img src=\"{0}\" alt=\"{0}\" loading=\"lazy\"></div>",
                    esc(f)
                );
            }
        }
    }
    h.push_str("</body></html>\n");
    std::fs::write(out.join("index.html"), h).map_err(|e| format!("index.html: {e}"))?;
    Ok(())
}
