//! Where things are in a scenario file: key paths ⇄ byte spans ⇄ lines, using toml's span-preserving parse.

use std::fmt;
use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A key path such as `link[2].rate`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    /// The empty path (the whole file).
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path extended by a key.
    pub fn key(&self, k: &str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_string()));
        p
    }

    /// This path extended by an index.
    pub fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }

    /// Whether this path is `other` or one of its ancestors.
    pub fn is_prefix_of(&self, other: &KeyPath) -> bool {
        other.0.starts_with(&self.0)
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A parsed file kept for locating errors.
pub struct Located<'a> {
    text: &'a str,
    root: Spanned<DeTable<'a>>,
}

impl<'a> Located<'a> {
    /// Parse `text` keeping spans (syntax errors come back as toml errors).
    pub fn parse(text: &'a str) -> Result<Self, toml::de::Error> {
        Ok(Located {
            text,
            root: DeTable::parse(text)?,
        })
    }

    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The key path of the innermost key or value whose span contains `offset`.
    pub fn path_at(&self, offset: usize) -> KeyPath {
        let mut path = KeyPath::root();
        find_in_table(self.root.get_ref(), offset, &mut path);
        path
    }

    /// The span of the value at `path` (or of the nearest ancestor that exists).
    pub fn span_of(&self, path: &KeyPath) -> Option<Range<usize>> {
        let mut span = None;
        let mut table = Some(self.root.get_ref());
        let mut value: Option<&Spanned<DeValue<'a>>> = None;
        for seg in &path.0 {
            let next = match (seg, table, value) {
                (Seg::Key(k), Some(t), _) => {
                    t.iter().find(|(key, _)| key.get_ref() == k).map(|(_, v)| v)
                }
                (Seg::Index(i), _, Some(v)) => v.get_ref().as_array().and_then(|a| a.get(*i)),
                _ => None,
            };
            let Some(v) = next else { break };
            span = Some(v.span());
            value = Some(v);
            table = v.get_ref().as_table();
        }
        span
    }
}

fn contains(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset < span.end.max(span.start + 1)
}

/// Depth-first search; array-of-tables elements span only their header, so every element is searched.
fn find_in_table(t: &DeTable<'_>, offset: usize, path: &mut KeyPath) -> bool {
    for (k, v) in t.iter() {
        path.0.push(Seg::Key(k.get_ref().to_string()));
        if contains(&k.span(), offset) || find_in_value(v, offset, path) {
            return true;
        }
        path.0.pop();
    }
    false
}

fn find_in_value(v: &Spanned<DeValue<'_>>, offset: usize, path: &mut KeyPath) -> bool {
    if let Some(t) = v.get_ref().as_table() {
        if find_in_table(t, offset, path) {
            return true;
        }
    }
    if let Some(a) = v.get_ref().as_array() {
        for (i, e) in a.iter().enumerate() {
            path.0.push(Seg::Index(i));
            if find_in_value(e, offset, path) {
                return true;
            }
            path.0.pop();
        }
    }
    contains(&v.span(), offset)
}

/// 1-based line and column of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "[run]\nduration = \"1s\"\n\n[[link]]\nbetween = [\"A\", \"B\"]\nrate = \"1Mbit\"\n\n[[link]]\nbetween = [\"B\", \"C\"]\nred = { min = 5, max = 20 }\n";

    #[test]
    fn paths_and_spans() {
        let l = Located::parse(T).unwrap();
        let rate = T.find("\"1Mbit\"").unwrap();
        assert_eq!(l.path_at(rate + 2).to_string(), "link[0].rate");
        let max = T.find("max =").unwrap();
        assert_eq!(l.path_at(max).to_string(), "link[1].red.max");
        let p = KeyPath::root().key("link").index(1).key("between");
        let span = l.span_of(&p).unwrap();
        assert_eq!(line_col(T, span.start), (9, 11));
        // A path that goes beyond the file points at its nearest ancestor.
        let q = KeyPath::root().key("link").index(1).key("loss");
        assert_eq!(line_col(T, l.span_of(&q).unwrap().start).0, 8);
    }
}
