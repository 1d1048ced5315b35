//! No production function of the workspace runs over 100 lines (docs/architecture.md#code-rules-checked-by-tests):
//! a longer one is split into steps with names. Tests (files named `tests*.rs`, `tests/` folders and
//! `#[cfg(test)]` modules) and `examples/` are left out.

use std::path::{Path, PathBuf};

/// The longest a production function may be, in lines from its `fn` line to its closing brace.
const MAX_LINES: usize = 100;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every production source file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "tests" | "examples" | "benches" | "target") {
                sources(&p, out);
            }
        } else if name.ends_with(".rs") && !name.starts_with("tests") {
            out.push(p);
        }
    }
}

/// The functions of `text` (before its first `#[cfg(test)]`) with their first line and length: a function
/// runs from its `fn` line to the first later line that closes a brace at the `fn` line's indentation.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let Some(name) = fn_name(line.trim_start()) else {
            i += 1;
            continue;
        };
        // A one-line function, or a declaration without a body (a trait's required method: `;` before any `{`).
        if line.contains('{') && line.trim_end().ends_with('}') {
            i += 1;
            continue;
        }
        let opens = lines[i..].iter().position(|l| l.trim_end().ends_with('{'));
        let ends = lines[i..].iter().position(|l| l.trim_end().ends_with(';'));
        if opens.is_none() || ends.is_some_and(|e| e < opens.unwrap_or(usize::MAX)) {
            i += 1;
            continue;
        }
        let close = (i + 1..lines.len()).find(|&k| {
            let l = lines[k];
            l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}')
        });
        let Some(close) = close else { break };
        out.push((name, i + 1, close - i + 1));
        i = close + 1;
    }
    out
}

/// The name after `fn` when `line` declares a function.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "const" | "async" | "unsafe" | "extern" | "default" => continue,
            w if w.starts_with("pub(") => continue,
            "fn" => {
                let name: String = words
                    .next()?
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                return (!name.is_empty()).then_some(name);
            }
            _ => return None,
        }
    }
    None
}

#[test]
fn no_production_function_is_over_100_lines() {
    let mut files = Vec::new();
    sources(&root().join("crates"), &mut files);
    files.sort();
    let mut long = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (name, line, len) in functions(&text) {
            if len > MAX_LINES {
                let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
                long.push(format!("{rel}:{line} {name}: {len} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_measure_finds_a_long_function_and_skips_tests_and_declarations() {
    let body = "        x += 1;\n".repeat(MAX_LINES);
    let text = format!(
        "trait T {{\n    fn required(&self);\n}}\n\npub(crate) fn long() {{\n{body}}}\n\nfn short() {{\n}}\n\n\
         fn one_line() -> u8 {{ 1 }}\n#[cfg(test)]\nmod tests {{\n    fn in_tests() {{\n{body}    }}\n}}\n"
    );
    let found = functions(&text);
    assert_eq!(
        found,
        vec![
            ("long".to_string(), 5, MAX_LINES + 2),
            ("short".to_string(), MAX_LINES + 8, 2)
        ]
    );
}
