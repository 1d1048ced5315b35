//! Scenario errors: what was wrong, which key, and where it was written (file and line, or the `--set`
//! argument).

use super::locate::{line_col, KeyPath, Located};
use std::fmt;

/// Where a bad value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A position in the scenario file (1-based line and column) with the line's text.
    File {
        /// File name as given.
        file: String,
        /// Line.
        line: usize,
        /// Column.
        col: usize,
        /// The line itself.
        text: String,
    },
    /// The file as a whole (no position known).
    WholeFile(String),
    /// A `--set key=value` argument.
    Set(String),
}

/// An error in a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where.
    pub origin: Origin,
    /// The key path (`link[1].rate`), when known.
    pub key: Option<String>,
    /// What was wrong.
    pub message: String,
}

impl ScenarioError {
    /// An error at a byte offset of the file.
    pub fn at_offset(
        file: &str,
        text: &str,
        offset: usize,
        key: Option<String>,
        message: String,
    ) -> Self {
        let (line, col) = line_col(text, offset);
        let line_text = text
            .split('\n')
            .nth(line - 1)
            .unwrap_or("")
            .trim_end_matches('\r');
        ScenarioError {
            origin: Origin::File {
                file: file.to_string(),
                line,
                col,
                text: line_text.to_string(),
            },
            key,
            message,
        }
    }

    /// An error about the value at `path` of the file.
    pub fn at_path(file: &str, located: &Located<'_>, path: &KeyPath, message: String) -> Self {
        let key = (!path.0.is_empty()).then(|| path.to_string());
        match located.span_of(path) {
            Some(span) => Self::at_offset(file, located.text(), span.start, key, message),
            None => ScenarioError {
                origin: Origin::WholeFile(file.to_string()),
                key,
                message,
            },
        }
    }

    /// An error caused by a `--set` argument.
    pub fn at_set(arg: &str, key: Option<String>, message: String) -> Self {
        ScenarioError {
            origin: Origin::Set(arg.to_string()),
            key,
            message,
        }
    }

    /// The 1-based line, for file errors.
    pub fn line(&self) -> Option<usize> {
        match &self.origin {
            Origin::File { line, .. } => Some(*line),
            _ => None,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::File {
                file, line, col, ..
            } => write!(f, "{file}:{line}:{col}: ")?,
            Origin::WholeFile(file) => write!(f, "{file}: ")?,
            Origin::Set(arg) => write!(f, "--set {arg}: ")?,
        }
        if let Some(k) = &self.key {
            write!(f, "`{k}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Origin::File {
            line, col, text, ..
        } = &self.origin
        {
            let gutter = line.to_string().len();
            write!(
                f,
                "\n{:gutter$} |\n{line} | {text}\n{:gutter$} | {:>col$}",
                "",
                "",
                "^",
                col = *col
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
