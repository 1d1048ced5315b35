//! No crate of the workspace has an import circle between its files: the graph of `crate::`, `super::` and
//! `self::` paths from each module's non-test code is acyclic (docs/architecture.md: dependencies point one way,
//! inside crates too). An edge goes to the file that defines what a path names: the deepest module the path
//! names, and through re-exports (`pub use`, globs included) to the module the item comes from, so a file that
//! imports `crate::Gsi` depends on the file defining `Gsi`, not on the crate root.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One crate's modules (binaries left out): each module's code without tests and comments, and the names each
/// module re-exports, by the module they come from.
struct Crate {
    code: BTreeMap<Module, String>,
    reexports: BTreeMap<(Module, String), Module>,
}

/// Every module file under `src` (binaries left out): module path → source text.
fn read_modules(src: &Path) -> BTreeMap<Module, String> {
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
            out.insert(m, std::fs::read_to_string(&p).unwrap());
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

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The use tree or path that starts at `text`'s beginning (`a::b`, `a::{b, c::d as e}`, `a::*`).
fn tree_at(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            c if is_ident(c) || c == ':' || c == '*' => {}
            ',' | ' ' | '\n' | '\t' if depth > 0 => {}
            _ => return &text[..i],
        }
        if depth == 0 && c == '}' {
            return &text[..=i];
        }
    }
    text
}

/// The paths of a use tree, braces expanded, each with the name it binds: `a::{b, c as d}` → `a::b` (b),
/// `a::c` (d).
fn expand(tree: &str) -> Vec<(String, String)> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let mut words = tree.split_whitespace();
        let path = words
            .next()
            .unwrap_or("")
            .trim_end_matches("::")
            .to_string();
        let name = match (words.next(), words.next()) {
            (Some("as"), Some(alias)) => alias.to_string(),
            _ => path.rsplit("::").next().unwrap_or("").to_string(),
        };
        return vec![(path, name)];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|(path, name)| match path.as_str() {
            "self" => (prefix.trim_end_matches("::").to_string(), name),
            _ => (format!("{prefix}{path}"), name),
        })
        .collect()
}

/// Names declared `pub` in a module's code.
fn pub_items(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        let Some(rest) = line
            .strip_prefix("pub ")
            .or_else(|| line.strip_prefix("pub(crate) "))
        else {
            continue;
        };
        let mut words = rest.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty());
        if let (Some("struct" | "enum" | "fn" | "const" | "static" | "type" | "trait"), Some(n)) =
            (words.next(), words.next())
        {
            out.push(n.to_string());
        }
    }
    out
}

impl Crate {
    fn new(sources: &BTreeMap<Module, String>) -> Crate {
        let mut krate = Crate {
            code: sources.iter().map(|(m, t)| (m.clone(), code(t))).collect(),
            reexports: BTreeMap::new(),
        };
        let mut found = Vec::new();
        for (m, c) in &krate.code {
            for stmt in c.split(';') {
                let s = stmt.trim_start();
                let Some(tree) = s
                    .strip_prefix("pub use ")
                    .or_else(|| s.strip_prefix("pub(crate) use "))
                else {
                    continue;
                };
                for (path, name) in expand(tree_at(tree.trim_start())) {
                    let (target, item) = krate.walk(m, &path, true);
                    if item.as_deref() == Some("*") {
                        for n in pub_items(&krate.code[&target]) {
                            found.push(((m.clone(), n), target.clone()));
                        }
                    } else if item.is_some() && target != *m {
                        found.push(((m.clone(), name), target));
                    }
                }
            }
        }
        krate.reexports.extend(found);
        krate
    }

    /// The deepest module `path` names from module `from`, and the item name after it, if any. With `relative`,
    /// a path that does not start with `crate`, `self` or `super` starts at `from` (a `use` in 2018 Rust).
    fn walk(&self, from: &Module, path: &str, relative: bool) -> (Module, Option<String>) {
        let mut parts = path.split("::").filter(|p| !p.is_empty()).peekable();
        let mut cur: Module = match parts.peek().copied() {
            Some("crate") => Vec::new(),
            Some("self") => from.clone(),
            Some("super") => {
                let mut c = from.clone();
                c.pop();
                c
            }
            _ if relative => from.clone(),
            _ => return (from.clone(), None),
        };
        if matches!(parts.peek().copied(), Some("crate" | "self" | "super")) {
            parts.next();
        }
        for p in parts {
            if p == "super" {
                cur.pop();
                continue;
            }
            let mut next = cur.clone();
            next.push(p.to_string());
            if !self.code.contains_key(&next) {
                return (cur, Some(p.to_string()));
            }
            cur = next;
        }
        (cur, None)
    }

    /// The module that defines what `path` names from module `from`, following re-exports.
    fn resolve(&self, from: &Module, path: &str) -> Module {
        let (mut module, item) = self.walk(from, path, false);
        if let Some(item) = item {
            for _ in 0..8 {
                match self.reexports.get(&(module.clone(), item.clone())) {
                    Some(m) if *m != module => module = m.clone(),
                    _ => break,
                }
            }
        }
        module
    }

    /// The modules that module `from`'s code names through `crate::`, `super::` and `self::` paths.
    fn targets(&self, from: &Module) -> Vec<Module> {
        let code = &self.code[from];
        let mut out = Vec::new();
        for start in ["crate::", "super::", "self::"] {
            let mut at = 0;
            while let Some(i) = code[at..].find(start) {
                let i = at + i;
                at = i + start.len();
                if code[..i].chars().next_back().is_some_and(is_ident) {
                    continue;
                }
                for (path, _) in expand(tree_at(&code[i..])) {
                    let m = self.resolve(from, &path);
                    if &m != from {
                        out.push(m);
                    }
                }
            }
        }
        out
    }

    fn graph(&self) -> BTreeMap<Module, Vec<Module>> {
        self.code
            .keys()
            .map(|m| (m.clone(), self.targets(m)))
            .collect()
    }
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

fn names(c: &[Module]) -> String {
    c.iter()
        .map(|m| format!("crate::{}", m.join("::")))
        .collect::<Vec<_>>()
        .join(" → ")
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
        let krate = Crate::new(&read_modules(&src));
        if let Some(c) = cycle(&krate.graph()) {
            found.push(format!(
                "{}: {}",
                e.file_name().to_string_lossy(),
                names(&c)
            ));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

fn krate(files: &[(&str, &str)]) -> Crate {
    let sources = files
        .iter()
        .map(|(m, t)| {
            let module = m.split("::").filter(|p| !p.is_empty()).map(String::from);
            (module.collect(), t.to_string())
        })
        .collect();
    Crate::new(&sources)
}

#[test]
fn the_checker_sees_a_circle() {
    let k = krate(&[
        ("", "mod a; mod b;"),
        ("a", "use crate::b::X;"),
        ("b", "fn f() { super::a::g() }"),
    ]);
    assert_eq!(cycle(&k.graph()).map(|c| c.len()), Some(2));
}

#[test]
fn the_checker_sees_a_circle_through_the_roots_re_exports() {
    // header uses the root's re-export of repr's type; repr uses header: a loop between two files that an
    // edge to the root would hide.
    let k = krate(&[
        (
            "",
            "mod header; mod repr;\npub use repr::*;\npub use header::Header;",
        ),
        ("header", "use crate::{field, Gsi};\npub struct Header;"),
        ("field", "pub const A: usize = 0;"),
        (
            "repr",
            "use crate::Header;\npub struct Gsi;\npub enum PacketType {}",
        ),
    ]);
    let c = cycle(&k.graph()).expect("a loop");
    assert_eq!(names(&c), "crate::header → crate::repr");
    // Without the loop's second half nothing is found.
    let k = krate(&[
        ("", "mod header; mod repr;\npub use repr::*;"),
        ("header", "use crate::{Gsi, repr::PacketType as P};"),
        ("repr", "pub struct Gsi;\npub enum PacketType {}"),
    ]);
    assert_eq!(
        k.graph()[&vec!["header".to_string()]],
        vec![vec!["repr".to_string()]; 2]
    );
    assert_eq!(cycle(&k.graph()), None);
}
