//! `--set key=value`: change any value of a scenario from the command line (sweeps).
//!
//! Keys are dotted paths. Arrays of tables are addressed by an element's name or by index:
//! `link.bottleneck.rate`, `link.0.rate`, `session.S1.pgmcc.c`, `session.S1.receivers.PR2.join`,
//! `tcp.T1.start`, `defaults.link.queue`. An element's name is its `name`, else for a link
//! `"<between[0]>-<between[1]>"`, for a receiver its `node`, for a fanout its `prefix`. Missing tables on the way
//! are created (`session.S1.pgmcc.c` works without a `pgmcc` table in the file). Values are parsed as TOML
//! values where possible (`3`, `0.75`, `true`, `["A", "B"]`), else taken as strings (`1Mbit`, `fixed:1s`).

use super::error::ScenarioError;
use super::locate::KeyPath;
use toml::{Table, Value};

/// One parsed `--set` argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The argument as given (for error messages).
    pub arg: String,
    /// Dotted key segments.
    pub keys: Vec<String>,
    /// The new value.
    pub value: Value,
}

impl Override {
    /// Parse `key=value`.
    pub fn parse(arg: &str) -> Result<Override, ScenarioError> {
        let Some((key, raw)) = arg.split_once('=') else {
            return Err(ScenarioError::at_set(
                arg,
                None,
                "expected key=value, e.g. run.duration=100s".into(),
            ));
        };
        let key = key.trim();
        let keys: Vec<String> = key.split('.').map(|s| s.trim().to_string()).collect();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(ScenarioError::at_set(
                arg,
                None,
                format!("`{key}` is not a dotted key path"),
            ));
        }
        Ok(Override {
            arg: arg.to_string(),
            keys,
            value: parse_value(raw.trim()),
        })
    }

    /// Apply to the file's table; returns the resolved key path (array elements as indices).
    pub fn apply(&self, root: &mut Table) -> Result<KeyPath, ScenarioError> {
        let err = |path: &KeyPath, msg: String| {
            ScenarioError::at_set(
                &self.arg,
                (!path.0.is_empty()).then(|| path.to_string()),
                msg,
            )
        };
        let mut path = KeyPath::root();
        let mut table = root;
        let mut i = 0;
        while i < self.keys.len() {
            let key = &self.keys[i];
            let last = i + 1 == self.keys.len();
            if last {
                table.insert(key.clone(), self.value.clone());
                return Ok(path.key(key));
            }
            path = path.key(key);
            let entry = table
                .entry(key.clone())
                .or_insert_with(|| Value::Table(Table::new()));
            table = match entry {
                Value::Table(t) => t,
                Value::Array(items) => {
                    let sel = &self.keys[i + 1];
                    let idx = select(items, sel).ok_or_else(|| {
                        let names: Vec<String> = items.iter().filter_map(element_name).collect();
                        err(
                            &path,
                            format!(
                                "no element `{sel}` (by name or index); there are {}{}",
                                items.len(),
                                if names.is_empty() {
                                    String::new()
                                } else {
                                    format!(": {}", names.join(", "))
                                }
                            ),
                        )
                    })?;
                    path = path.index(idx);
                    i += 1;
                    if i + 1 == self.keys.len() {
                        return Err(err(
                            &path,
                            "an array element cannot be replaced whole; set one of its fields"
                                .into(),
                        ));
                    }
                    match &mut items[idx] {
                        Value::Table(t) => t,
                        _ => {
                            return Err(err(
                                &path,
                                "this array holds plain values; set the whole array".into(),
                            ))
                        }
                    }
                }
                other => {
                    return Err(err(
                        &path,
                        format!(
                            "is a {}, not a table: it has no field `{}`",
                            other.type_str(),
                            self.keys[i + 1]
                        ),
                    ))
                }
            };
            i += 1;
        }
        unreachable!("the loop returns at the last key")
    }
}

/// A TOML value if `raw` is one, else the string itself.
fn parse_value(raw: &str) -> Value {
    match toml::from_str::<Table>(&format!("v = {raw}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// The name an element of an array of tables is addressed by.
pub fn element_name(v: &Value) -> Option<String> {
    let t = v.as_table()?;
    if let Some(n) = t.get("name").and_then(Value::as_str) {
        return Some(n.to_string());
    }
    if let Some(Value::Array(b)) = t.get("between") {
        if let [Value::String(a), Value::String(b)] = b.as_slice() {
            return Some(format!("{a}-{b}"));
        }
    }
    t.get("node")
        .or_else(|| t.get("prefix"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn select(items: &[Value], sel: &str) -> Option<usize> {
    if let Some(i) = items
        .iter()
        .position(|v| element_name(v).as_deref() == Some(sel))
    {
        return Some(i);
    }
    sel.parse::<usize>().ok().filter(|i| *i < items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> Table {
        toml::from_str(s).unwrap()
    }

    #[test]
    fn values_parse_as_toml_or_string() {
        assert_eq!(parse_value("3"), Value::Integer(3));
        assert_eq!(parse_value("0.75"), Value::Float(0.75));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("1Mbit"), Value::String("1Mbit".into()));
        assert_eq!(parse_value("fixed:1s"), Value::String("fixed:1s".into()));
        assert_eq!(parse_value("\"x y\""), Value::String("x y".into()));
        assert!(matches!(parse_value("[\"A\", \"B\"]"), Value::Array(_)));
    }

    #[test]
    fn addresses_elements_by_name_default_name_and_index() {
        let mut t = table(
            "[run]\nduration = \"1s\"\n[[link]]\nbetween = [\"A\", \"B\"]\n[[link]]\nname = \"bn\"\nbetween = [\"B\", \"C\"]\n\
             [[session]]\nname = \"S1\"\nreceivers = [{ node = \"C\" }]\n",
        );
        let p = Override::parse("link.bn.rate=1Mbit")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(p.to_string(), "link[1].rate");
        let p = Override::parse("link.A-B.delay=5ms")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(p.to_string(), "link[0].delay");
        let p = Override::parse("link.0.loss=0.1")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(p.to_string(), "link[0].loss");
        let p = Override::parse("session.S1.pgmcc.c=0.75")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(p.to_string(), "session[0].pgmcc.c");
        let p = Override::parse("session.S1.receivers.C.join=5s")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(p.to_string(), "session[0].receivers[0].join");
        Override::parse("run.duration=100s")
            .unwrap()
            .apply(&mut t)
            .unwrap();
        assert_eq!(t["run"]["duration"].as_str(), Some("100s"));
        assert_eq!(t["link"][1]["rate"].as_str(), Some("1Mbit"));
        assert_eq!(t["session"][0]["pgmcc"]["c"].as_float(), Some(0.75));
    }

    #[test]
    fn errors_name_the_argument() {
        let mut t = table("[run]\nduration = \"1s\"\n[[link]]\nname = \"bn\"\n");
        let e = Override::parse("link.nope.rate=1Mbit")
            .unwrap()
            .apply(&mut t)
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--set link.nope.rate=1Mbit: `link`: no element `nope`"),
            "{e}"
        );
        assert!(e.to_string().contains("bn"), "{e}");
        let e = Override::parse("run.duration.x=1")
            .unwrap()
            .apply(&mut t)
            .unwrap_err();
        assert!(e.to_string().contains("not a table"), "{e}");
        assert!(Override::parse("run.duration").is_err());
    }
}
