//! What the code and the documentation cite is in the repository: no path outside it, every
//! `docs/PAGE.md#anchor` a heading of that page, and every experiment `convoy reproduce` runs described in
//! docs/experiments.md under a heading of its id.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's source, scenario, script and documentation files (build output and VCS data left out).
fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    stack.push(p);
                }
            } else if [".rs", ".md", ".toml", ".sh", ".h", ".c", ".py"]
                .iter()
                .any(|x| name.ends_with(x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(page).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect()
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// Whether `line` names a paper by the file its text was kept in outside the repository (`NNN_` and 16 hex
/// digits, `.txt`): the papers have names (docs/papers.md).
fn names_a_seed_file(line: &str) -> bool {
    line.match_indices(".txt").any(|(i, _)| {
        let b = line.as_bytes();
        i >= 20
            && b[i - 20..i - 17].iter().all(u8::is_ascii_digit)
            && b[i - 17] == b'_'
            && b[i - 16..i].iter().all(u8::is_ascii_hexdigit)
    })
}

#[test]
fn nothing_cites_a_path_outside_the_repository() {
    let outside = ["../shared", "shared/spec/", "shared/seeds/", "seeds/00"];
    let mut found = Vec::new();
    for f in files() {
        if f.ends_with("crates/cli/tests/docs_citations.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) || names_a_seed_file(line) {
                found.push(format!("{}:{}: {}", rel(&f), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "citations outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_cited_docs_anchor_is_a_heading() {
    let mut found = Vec::new();
    for f in files() {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let mut at = 0;
        while let Some(i) = text[at..].find(".md#") {
            let i = at + i;
            at = i + 4;
            let start = text[..i]
                .rfind(|c: char| !(c.is_alphanumeric() || "-_/.".contains(c)))
                .map_or(0, |s| s + 1);
            let page = &text[start..i + 3];
            let frag: String = text[i + 4..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            let name = page.rsplit('/').next().unwrap_or(page);
            let path = root().join("docs").join(name);
            // `PAGE.md#<id>` in prose is a pattern, not a citation.
            if !path.exists() || page.starts_with("http") || frag.is_empty() {
                continue;
            }
            if !anchors(&path).contains(&frag) {
                found.push(format!("{}: {page}#{frag}", rel(&f)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "anchors with no heading:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_experiment_has_its_section_in_docs_experiments() {
    let headings = anchors(&root().join("docs/experiments.md"));
    let missing: Vec<&str> = convoy_experiments::reproduce::registry::all()
        .iter()
        .map(|e| e.id)
        .filter(|id| !headings.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "experiments without a section: {missing:?}"
    );
}

#[test]
fn a_seed_file_name_is_seen() {
    assert!(names_a_seed_file(
        "source: \"003_3ac24226e28fd833.txt, §4.1\""
    ));
    assert!(!names_a_seed_file(
        "Widmer and Handley 2001, §4.1, notes.txt"
    ));
}

#[test]
fn the_anchor_rule_is_githubs() {
    assert_eq!(anchor(" pgmcc-fig2-filter"), "pgmcc-fig2-filter");
    assert_eq!(anchor("Wang and Fahmy"), "wang-and-fahmy");
    assert_eq!(anchor("§1.6 One port (why)"), "16-one-port-why");
}
