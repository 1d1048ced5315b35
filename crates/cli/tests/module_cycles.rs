//! No crate of the workspace has an import circle between its modules: the graph of `crate::`, `super::` and
//! `self::` paths from each module's non-test code is acyclic (architecture: dependencies point one way, inside
//! crates too). Edges go to the deepest module a path names; re-exports at a crate's root count as the root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every module file under `src` (binaries left out) by module path.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "bin") {
                    stack.push(p);
                }
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut m: Module = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                m.pop();
            }
            out.insert(m, p);
        }
    }
    out
}

/// Source without test modules and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths (`crate::a::b`, `super::x`, `self::y`) named in `code`, resolved from module `from`.
fn targets(code: &str, from: &Module, known: &BTreeMap<Module, PathBuf>) -> Vec<Module> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(i) = code[at..].find(start) {
            let i = at + i;
            at = i + start.len();
            if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
                continue;
            }
            let path: String = code[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut parts = path.split("::").filter(|p| !p.is_empty());
            let mut cur: Module = match parts.next() {
                Some("crate") => Vec::new(),
                Some("self") => from.clone(),
                _ => {
                    let mut c = from.clone();
                    c.pop();
                    c
                }
            };
            for p in parts {
                if p == "super" {
                    cur.pop();
                    continue;
                }
                let mut next = cur.clone();
                next.push(p.to_string());
                if !known.contains_key(&next) {
                    break;
                }
                cur = next;
            }
            if &cur != from {
                out.push(cur);
            }
        }
    }
    out
}

fn cycle(graph: &BTreeMap<Module, Vec<Module>>) -> Option<Vec<Module>> {
    // Depth-first search with colours; returns the modules of one cycle.
    fn visit(
        m: &Module,
        g: &BTreeMap<Module, Vec<Module>>,
        state: &mut BTreeMap<Module, u8>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(m.clone(), 1);
        path.push(m.clone());
        for t in g.get(m).into_iter().flatten() {
            match state.get(t).copied().unwrap_or(0) {
                1 => {
                    let i = path.iter().position(|p| p == t).unwrap_or(0);
                    return Some(path[i..].to_vec());
                }
                0 => {
                    if let Some(c) = visit(t, g, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(m, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_circle() {
    let crates = root().join("crates");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&crates).unwrap().map(Result::unwrap) {
        let src = e.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let known = modules(&src);
        let graph: BTreeMap<Module, Vec<Module>> = known
            .iter()
            .map(|(m, p)| {
                let text = std::fs::read_to_string(p).unwrap();
                (m.clone(), targets(&code(&text), m, &known))
            })
            .collect();
        if let Some(c) = cycle(&graph) {
            let names: Vec<String> = c
                .iter()
                .map(|m| format!("crate::{}", m.join("::")))
                .collect();
            found.push(format!(
                "{}: {}",
                e.file_name().to_string_lossy(),
                names.join(" → ")
            ));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_checker_sees_a_circle() {
    let known: BTreeMap<Module, PathBuf> = [vec!["a".to_string()], vec!["b".to_string()]]
        .into_iter()
        .map(|m| (m, PathBuf::new()))
        .collect();
    let a = vec!["a".to_string()];
    let b = vec!["b".to_string()];
    let graph: BTreeMap<Module, Vec<Module>> = [
        (a.clone(), targets("use crate::b::X;", &a, &known)),
        (b.clone(), targets("fn f() { super::a::g() }", &b, &known)),
    ]
    .into_iter()
    .collect();
    assert_eq!(cycle(&graph).map(|c| c.len()), Some(2));
}
