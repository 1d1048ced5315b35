//! The sweep's long table (docs/sweep.md, "Results"): one row per run × flow, receiver or link direction ×
//! metric, written as CSV (results.csv) and Parquet (results.parquet, one row group, uncompressed; pandas,
//! polars and DuckDB read it).
//!
//! Both hold the same rows in the same order; every column is a string except `seed` (INT64) and `value`
//! (DOUBLE), and an axis a run's sub-grid lacks is an empty string, as in the CSV. With `time_bins = true` in
//! the grid, results-bins.csv and results-bins.parquet also hold every flow's sender-side throughput per time
//! bin: `run`, the axes, `seed`, `id`, `t_s` (the bin's start), `throughput_bps`.

use super::grid::Grid;
use super::{metrics, read_summary, SweepError};
use crate::simrun::summary::Summary;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Which run a row belongs to: its id, its value per axis of the grid (empty where its sub-grid has no such
/// axis) and its seed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunKey {
    /// The run's id.
    pub run: String,
    /// Its value per axis.
    pub axes: Vec<String>,
    /// Its seed.
    pub seed: u64,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    /// The run.
    pub key: RunKey,
    /// `flow`, `receiver` or `link`.
    pub kind: &'static str,
    /// The flow, `flow/receiver` or link direction.
    pub id: String,
    /// The metric.
    pub metric: &'static str,
    /// Its value.
    pub value: f64,
}

/// One time bin of one flow of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct BinRow {
    /// The run.
    pub key: RunKey,
    /// The flow.
    pub id: String,
    /// The bin's start, seconds.
    pub t_s: f64,
    /// Sender-side payload throughput in the bin, bit/s.
    pub throughput_bps: f64,
}

/// The runs of the plan indices `share` that have a summary, in plan order.
fn summarized(
    grid: &Grid,
    ids: &[String],
    share: &[usize],
    runs_dir: &Path,
) -> Vec<(RunKey, Summary)> {
    share
        .iter()
        .filter_map(|&i| {
            let (run, id) = (&grid.runs[i], &ids[i]);
            let summary = read_summary(&runs_dir.join(id))?;
            let axes = run
                .values
                .iter()
                .map(|v| v.as_ref().map_or(String::new(), |v| v.label.clone()))
                .collect();
            Some((
                RunKey {
                    run: id.clone(),
                    axes,
                    seed: run.seed,
                },
                summary,
            ))
        })
        .collect()
}

/// The rows of the plan indices `share`, in plan order; runs without a summary contribute nothing.
pub fn rows(grid: &Grid, ids: &[String], share: &[usize], runs_dir: &Path) -> Vec<TableRow> {
    let mut out = Vec::new();
    for (key, summary) in summarized(grid, ids, share, runs_dir) {
        for m in metrics::rows(&summary, &grid.metrics) {
            out.push(TableRow {
                key: key.clone(),
                kind: m.kind,
                id: m.id,
                metric: m.metric,
                value: m.value,
            });
        }
    }
    out
}

/// Every flow's time bins, for the plan indices `share` in plan order.
pub fn bin_rows(grid: &Grid, ids: &[String], share: &[usize], runs_dir: &Path) -> Vec<BinRow> {
    let mut out = Vec::new();
    for (key, summary) in summarized(grid, ids, share, runs_dir) {
        for f in &summary.flows {
            for (k, &bps) in f.throughput.bps.iter().enumerate() {
                let t_s = k as f64 * f.throughput.interval_s;
                out.push(BinRow {
                    key: key.clone(),
                    id: f.id.clone(),
                    t_s,
                    throughput_bps: bps,
                });
            }
        }
    }
    out
}

/// Write results.csv and results.parquet (and, when the grid asks, results-bins.csv and .parquet) into `dir`
/// for the plan indices `share`; returns the CSV's path and its number of rows.
pub fn write_tables(
    dir: &Path,
    grid: &Grid,
    ids: &[String],
    share: &[usize],
    runs_dir: &Path,
) -> Result<(std::path::PathBuf, usize), SweepError> {
    let rows = rows(grid, ids, share, runs_dir);
    let csv = dir.join("results.csv");
    write_text(&csv, to_csv(&grid.axes, &rows))?;
    write_parquet(&dir.join("results.parquet"), &grid.axes, &rows)?;
    if grid.time_bins {
        let bins = bin_rows(grid, ids, share, runs_dir);
        let mut text = csv_header(&grid.axes, "id,t_s,throughput_bps");
        for b in &bins {
            csv_key(&mut text, &b.key);
            let _ = writeln!(text, ",{},{},{}", csv_field(&b.id), b.t_s, b.throughput_bps);
        }
        write_text(&dir.join("results-bins.csv"), text)?;
        let mut columns = key_columns(&grid.axes, bins.iter().map(|b| &b.key));
        columns.push((
            "id".into(),
            Column::strings(bins.iter().map(|r| r.id.as_str())),
        ));
        columns.push((
            "t_s".into(),
            Column::F64(bins.iter().map(|r| r.t_s).collect()),
        ));
        columns.push((
            "throughput_bps".into(),
            Column::F64(bins.iter().map(|r| r.throughput_bps).collect()),
        ));
        write_columns(&dir.join("results-bins.parquet"), &columns)?;
    }
    Ok((csv, rows.len()))
}

fn write_text(path: &Path, text: String) -> Result<(), SweepError> {
    std::fs::write(path, text)
        .map_err(|e| SweepError::Io(format!("writing {}: {e}", path.display())))
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `run`, the axes, `seed`, then `rest`, and a line break.
fn csv_header(axes: &[String], rest: &str) -> String {
    let mut out = String::from("run");
    for axis in axes {
        out.push(',');
        out.push_str(&csv_field(axis));
    }
    let _ = writeln!(out, ",seed,{rest}");
    out
}

/// A row's run, axes and seed.
fn csv_key(out: &mut String, key: &RunKey) {
    out.push_str(&key.run);
    for a in &key.axes {
        out.push(',');
        out.push_str(&csv_field(a));
    }
    let _ = write!(out, ",{}", key.seed);
}

/// The CSV text: `run`, the axes, `seed`, `kind`, `id`, `metric`, `value`.
pub fn to_csv(axes: &[String], rows: &[TableRow]) -> String {
    let mut out = csv_header(axes, "kind,id,metric,value");
    for r in rows {
        csv_key(&mut out, &r.key);
        let _ = writeln!(
            out,
            ",{},{},{},{}",
            r.kind,
            csv_field(&r.id),
            r.metric,
            r.value
        );
    }
    out
}

/// One column of a Parquet file.
enum Column {
    Str(Vec<ByteArray>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Column {
    fn strings<'a>(values: impl Iterator<Item = &'a str>) -> Column {
        Column::Str(
            values
                .map(|v| ByteArray::from(v.as_bytes().to_vec()))
                .collect(),
        )
    }

    fn field(&self, name: &str) -> Result<Arc<Type>, parquet::errors::ParquetError> {
        use parquet::basic::{LogicalType, Repetition, Type as Physical};
        let (physical, logical) = match self {
            Column::Str(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Column::I64(_) => (Physical::INT64, None),
            Column::F64(_) => (Physical::DOUBLE, None),
        };
        Ok(Arc::new(
            Type::primitive_type_builder(name, physical)
                .with_repetition(Repetition::REQUIRED)
                .with_logical_type(logical)
                .build()?,
        ))
    }
}

/// Write named columns of equal length to `path` as one row group, every column required.
fn write_columns(path: &Path, columns: &[(String, Column)]) -> Result<(), SweepError> {
    write_parquet_file(path, columns)
        .map_err(|e| SweepError::Io(format!("writing {}: {e}", path.display())))
}

fn write_parquet_file(
    path: &Path,
    columns: &[(String, Column)],
) -> Result<(), Box<dyn std::error::Error>> {
    let fields = columns
        .iter()
        .map(|(name, c)| c.field(name))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(
        Type::group_type_builder("results")
            .with_fields(fields)
            .build()?,
    );
    let file = std::fs::File::create(path)?;
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(file, schema, props)?;
    let mut group = writer.next_row_group()?;
    let mut values = columns.iter();
    while let Some(mut col) = group.next_column()? {
        match values.next().map(|(_, c)| c) {
            Some(Column::Str(v)) => col.typed::<ByteArrayType>().write_batch(v, None, None)?,
            Some(Column::I64(v)) => col.typed::<Int64Type>().write_batch(v, None, None)?,
            Some(Column::F64(v)) => col.typed::<DoubleType>().write_batch(v, None, None)?,
            None => return Err("more columns in the schema than given".into()),
        };
        col.close()?;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}

/// The `run`, axis and `seed` columns of rows with these keys.
fn key_columns<'a>(
    axes: &[String],
    keys: impl Iterator<Item = &'a RunKey> + Clone,
) -> Vec<(String, Column)> {
    let mut columns = vec![(
        "run".to_string(),
        Column::strings(keys.clone().map(|k| k.run.as_str())),
    )];
    for (i, a) in axes.iter().enumerate() {
        columns.push((
            a.clone(),
            Column::strings(keys.clone().map(|k| k.axes[i].as_str())),
        ));
    }
    columns.push((
        "seed".into(),
        Column::I64(keys.map(|k| k.seed as i64).collect()),
    ));
    columns
}

/// Write the rows to `path` as Parquet (module docs), with the CSV's columns.
pub fn write_parquet(path: &Path, axes: &[String], rows: &[TableRow]) -> Result<(), SweepError> {
    let mut columns = key_columns(axes, rows.iter().map(|r| &r.key));
    columns.push(("kind".into(), Column::strings(rows.iter().map(|r| r.kind))));
    columns.push((
        "id".into(),
        Column::strings(rows.iter().map(|r| r.id.as_str())),
    ));
    columns.push((
        "metric".into(),
        Column::strings(rows.iter().map(|r| r.metric)),
    ));
    columns.push((
        "value".into(),
        Column::F64(rows.iter().map(|r| r.value).collect()),
    ));
    write_columns(path, &columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    fn row(run: &str, axis: &str, value: f64) -> TableRow {
        TableRow {
            key: RunKey {
                run: run.into(),
                axes: vec![axis.into()],
                seed: 3,
            },
            kind: "flow",
            id: "S1".into(),
            metric: "goodput_bps",
            value,
        }
    }

    #[test]
    fn parquet_holds_the_csv_rows() {
        let rows = [row("a1", "1Mbit", 5.5), row("b2", "", 7.0)];
        let axes = ["link.L.rate".to_string()];
        let path =
            std::env::temp_dir().join(format!("convoy-table-{}.parquet", std::process::id()));
        write_parquet(&path, &axes, &rows).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let read: Vec<String> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap().to_string())
            .collect();
        let _ = std::fs::remove_file(&path);
        assert_eq!(read.len(), 2);
        assert_eq!(
            read[0],
            "{run: \"a1\", link.L.rate: \"1Mbit\", seed: 3, kind: \"flow\", id: \"S1\", metric: \"goodput_bps\", value: 5.5}"
        );
        assert!(read[1].contains("link.L.rate: \"\""), "{}", read[1]);
        let csv = to_csv(&axes, &rows);
        assert_eq!(
            csv.lines().nth(1),
            Some("a1,1Mbit,3,flow,S1,goodput_bps,5.5")
        );
    }
}
