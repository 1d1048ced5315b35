"""Convoy from Python: run scenarios, sweeps and the seed papers' reproductions, get pandas DataFrames.

The simulator, the sweeps and the verdicts are Convoy's own Rust code (the ``convoy`` command's library), called
with the GIL released; this module turns their results into DataFrames. docs/python.md has the guide.

    >>> import convoy
    >>> r = convoy.sim("scenarios/fig5-acker.toml", set={"link.L1.rate": "300kbit"})
    >>> r.summary["flows"][0]["goodput_bps"]
    >>> r.series("throughput")            # t_s, id, value
    >>> table = convoy.sweep("docs/examples/fig5-l1-rate.toml", out="out/sweep")
    >>> v = convoy.reproduce(["pgmcc-fig2-filter"], seeds=2)
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _convoy

# Sweep results are kept by a content id that names the build: this package's extension module.
_convoy.name_build(_convoy.__file__)

__all__ = [
    "sim",
    "sweep",
    "reproduce",
    "experiments",
    "SimResult",
    "SlurmPlan",
    "Reproduction",
    "ConvoyError",
    "ScenarioError",
    "GridError",
]

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]


class ConvoyError(Exception):
    """A run that could not be made; the message is the one the ``convoy`` command prints."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        #: Where the fault is, when known: ``file``, ``line``, ``column``, ``key``, ``set``.
        self.details = details


class ScenarioError(ConvoyError, ValueError):
    """A scenario that does not load: the file (``<text>`` or ``<dict>`` when not given as a path), the line,
    the column and the key, as ``convoy sim`` names them."""

    @property
    def file(self) -> Optional[str]:
        return self.details.get("file")

    @property
    def line(self) -> Optional[int]:
        return self.details.get("line")

    @property
    def column(self) -> Optional[int]:
        return self.details.get("column")

    @property
    def key(self) -> Optional[str]:
        return self.details.get("key")


class GridError(ScenarioError):
    """A sweep grid that does not load: its file, line and key, as ``convoy sweep`` names them."""


def _raise(err: _convoy.NativeError) -> None:
    kind, message, details = err.args
    details = {k: v for k, v in json.loads(details).items() if v is not None}
    cls = {"scenario": ScenarioError, "grid": GridError}.get(kind, ConvoyError)
    raise cls(message, **details) from None


def _call(fn: Callable[..., str], *args: Any, **kwargs: Any) -> Any:
    try:
        return json.loads(fn(*args, **kwargs))
    except _convoy.NativeError as err:
        _raise(err)


def _source(obj: Scenario, what: str) -> "tuple[str, str, str]":
    """(TOML text, the name errors give it, the stem) of a scenario or grid given as a path, TOML text or dict."""
    if isinstance(obj, Mapping):
        try:
            text = _convoy.dict_to_toml(dict(obj))
        except _convoy.NativeError as err:
            _raise(err)
        return text, "<dict>", what
    if isinstance(obj, os.PathLike) or (isinstance(obj, str) and "\n" not in obj and obj.endswith(".toml")):
        path = Path(obj)
        try:
            text = path.read_text()
        except OSError as e:
            raise ScenarioError(f"{path}: cannot read: {e}", file=str(path)) from None
        return text, str(path), path.stem
    if isinstance(obj, str):
        return obj, "<text>", what
    raise TypeError(f"a {what} is a path, TOML text or a dict, not {type(obj).__name__}")


def _long(csv: str, id_name: str = "id") -> pd.DataFrame:
    """A CSV series (``t_s`` then one column per entity) in long form: t_s, id, value."""
    wide = pd.read_csv(io.StringIO(csv))
    time = wide.columns[0]
    long = wide.melt(id_vars=[time], var_name=id_name, value_name="value")
    return long.rename(columns={time: "t_s"}) if time != "t_s" else long


class SimResult:
    """What :func:`sim` ran: the summary, tables in long form and the series.

    ``summary`` is summary.json as a dict. ``flows``, ``receivers`` and ``links`` have one row per entity and
    metric (``value`` numeric). ``series(kind)`` gives a CSV series of the run in long form with time in seconds;
    ``series_kinds`` lists them (``throughput``, ``receivers``, ``window-SESSION``, ``seq-SESSION``, ``queue``,
    ``drops``, as the run has them). With ``out``, ``dir`` is where ``convoy sim``'s files were written and
    ``plots`` maps each plot's name to its SVG file.
    """

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.summary: Dict[str, Any] = raw["summary"]
        self._series: Dict[str, str] = {name[: -len(".csv")]: csv for name, csv in raw["series"]}
        self.dir: Optional[Path] = Path(raw["dir"]) if raw["dir"] else None
        self.files: List[str] = list(raw["files"])
        self.plots: Dict[str, Path] = {
            f[: -len(".svg")]: self.dir / f for f in self.files if self.dir and f.endswith(".svg")
        }

    @property
    def series_kinds(self) -> List[str]:
        return list(self._series)

    def series(self, kind: str) -> pd.DataFrame:
        """The series ``kind`` in long form: ``t_s`` (seconds), ``id`` (the column of the CSV file: a flow,
        ``session/receiver``, a link direction, a window quantity), ``value``. ``window`` and ``seq`` alone name
        the only session's."""
        if kind not in self._series:
            matches = [k for k in self._series if k.startswith(kind + "-")]
            if len(matches) != 1:
                raise KeyError(f"no series {kind!r}; this run has {', '.join(self._series) or 'none'}")
            kind = matches[0]
        return _long(self._series[kind])

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow and metric: flow, kind, metric, value (goodput_bps, start_s, stop_s, timeouts,
        switches, sheds)."""
        rows = []
        for f in self.summary["flows"]:
            metrics = {
                "goodput_bps": f["goodput_bps"],
                "start_s": f["start_s"],
                "stop_s": f["stop_s"],
                "timeouts": f["timeouts"],
                "switches": len(f["switches"]),
                "sheds": len(f.get("sheds", [])),
            }
            rows += [(f["id"], f["kind"], m, v) for m, v in metrics.items()]
        return pd.DataFrame(rows, columns=["flow", "kind", "metric", "value"])

    @property
    def receivers(self) -> pd.DataFrame:
        """One row per multicast receiver and metric: flow, receiver, metric, value (goodput_bps, loss_rate,
        delivered_bytes, naks_sent, naks_at_source)."""
        rows = [
            (f["id"], r["id"], m, v)
            for f in self.summary["flows"]
            for r in f["receivers"]
            for m, v in r.items()
            if m != "id"
        ]
        return pd.DataFrame(rows, columns=["flow", "receiver", "metric", "value"])

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction and metric: link, metric, value (utilization, packets, drops,
        mean_queue_pkts)."""
        rows = [(l["id"], m, v) for l in self.summary["links"] for m, v in l.items() if m != "id"]
        return pd.DataFrame(rows, columns=["link", "metric", "value"])

    def __repr__(self) -> str:
        s = self.summary
        return f"<SimResult {s['scenario']} seed {s['seed']}: {len(s['flows'])} flows, {s['duration_s']} s>"


def sim(
    scenario: Scenario,
    seed: Optional[int] = None,
    set: Optional[Mapping[str, Any]] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    pcap: Optional[str] = None,
    name: Optional[str] = None,
) -> SimResult:
    """Run a scenario on the simulator, as ``convoy sim`` does.

    ``scenario`` is a path to a TOML file, TOML text, or a dict of the same structure (docs/scenario-format.md).
    ``seed`` overrides ``run.seed``; ``set`` maps keys to values as ``--set key=value`` does, applied in order
    (``{"link.L1.rate": "300kbit"}``). Without ``out`` nothing is written; with it, the files ``convoy sim``
    writes (summary.json, CSV series, SVG plots, and with ``pcap`` a capture of that link direction). ``name``
    is the scenario's name in the summary: the file's stem by default, ``scenario`` for text and dicts. Raises
    :class:`ScenarioError` naming the file, line and key of a bad scenario. The GIL is released while it runs.
    """
    text, file, stem = _source(scenario, "scenario")
    name = name or stem
    sets = [f"{k}={v}" for k, v in (set or {}).items()]
    if seed is not None:
        sets.append(f"run.seed={int(seed)}")
    raw = _call(_convoy.sim, text, file, name, sets, None if out is None else str(out), pcap)
    return SimResult(raw)


class SlurmPlan(dict):
    """What ``sweep(grid, slurm=DIR)`` wrote: total, to_run, seconds_per_run, runs_per_task, tasks, script
    (submit it with ``sbatch``; then ``convoy sweep collect DIR``)."""


def _progress_bar(progress: Union[bool, Callable[..., None]], what: str) -> Optional[Callable[..., None]]:
    if callable(progress):
        return progress
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bars: List[Any] = []

    def update(done: int, total: int, *_: Any) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit=what))
        bar = bars[0]
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def sweep(
    grid: Scenario,
    jobs: Optional[int] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Union[bool, Callable[[int, int, bool], None]] = True,
    slurm: Optional[Union[str, "os.PathLike[str]"]] = None,
    task_minutes: float = 5.0,
    slurm_parallel: int = 64,
    convoy_command: Optional[str] = None,
) -> Union[pd.DataFrame, SlurmPlan]:
    """Run a sweep grid (docs/sweep.md) on all cores and return its long table, as ``convoy sweep`` writes it to
    results.csv: one row per run, entity and metric (run, the axes, seed, kind, id, metric, value).

    ``grid`` is a path, TOML text or a dict; its scenario path is relative to the grid file (to the current
    directory for text and dicts). With ``out`` the runs are kept there by content and a repeated call runs only
    what is missing; without it they go to a temporary directory. ``progress`` is called as
    ``progress(done, total, failed)`` after each run, or, when True, drives a tqdm bar if tqdm is installed; a
    callback that raises is not called again, and its exception is raised once the runs are made.
    The table's ``attrs`` hold the report (out, total, ran, reused, failed, results).

    With ``slurm=DIR`` nothing runs here but one timing run: the Slurm job array is written into DIR as
    ``convoy sweep GRID --slurm DIR`` writes it (the grid must then be a file, and the tasks run the ``convoy``
    command, found on PATH or given as ``convoy_command``); returns the :class:`SlurmPlan`.
    """
    if slurm is not None:
        if not (isinstance(grid, os.PathLike) or isinstance(grid, str) and grid.endswith(".toml")):
            raise TypeError("a Slurm sweep needs the grid as a file: the cluster's tasks read it")
        command = convoy_command or shutil.which("convoy")
        if command is None:
            raise ConvoyError("a Slurm sweep's tasks run the `convoy` command: none on PATH; give convoy_command")
        raw = _call(_convoy.sweep_slurm, str(grid), str(slurm), task_minutes, slurm_parallel, command)
        return SlurmPlan(raw)
    text, file, _ = _source(grid, "grid")
    jobs = jobs or os.cpu_count() or 1
    callback = _progress_bar(progress, "run")
    with tempfile.TemporaryDirectory(prefix="convoy-sweep-") as tmp:
        target = str(out) if out is not None else tmp
        report = _call(_convoy.sweep, text, file, target, jobs, callback)
        table = pd.read_csv(report["results"])
    table.attrs.update(report)
    if out is None:
        table.attrs.pop("out", None)
        table.attrs.pop("results", None)
    return table


# The forms a numeric check's expected text takes (convoy_experiments::reproduce::verdict::Check::range,
# at_least, at_most): "[lo, hi]unit (source)", "≥ lo unit (source)", "≤ hi unit (source)"; and a reported value's.
_RANGE = re.compile(r"^\[(?P<lo>[^,\]]+), (?P<hi>[^\]]+)\](?P<unit>[^(]*?) \((?P<source>.*)\)$")
_BOUND = re.compile(r"^(?P<op>[≥≤]) (?P<bound>-?∞|-?[0-9.]+(?:e-?[0-9]+)?)(?P<unit>[^(]*?) \((?P<source>.*)\)$")
_REPORTED = re.compile(r"^reported beside the paper's (?P<source>.*)$")


def _number(text: str) -> float:
    text = text.strip()
    if text in ("∞", "-∞"):
        return math.inf if text == "∞" else -math.inf
    try:
        return float(text)
    except ValueError:
        return math.nan


def _numbers(expected: str, measured: str) -> "tuple[float, float, float, str, str]":
    """(value, lo, hi, unit, source) of a check; NaN and the whole text where it is not numeric."""
    lo = hi = math.nan
    unit, source = "", expected
    m = _RANGE.match(expected)
    if m:
        lo, hi, unit, source = _number(m["lo"]), _number(m["hi"]), m["unit"], m["source"]
    else:
        m = _BOUND.match(expected)
        if m:
            bound, unit, source = _number(m["bound"]), m["unit"], m["source"]
            lo, hi = (bound, math.inf) if m["op"] == "≥" else (-math.inf, bound)
        else:
            m = _REPORTED.match(expected)
            if m:
                source = m["source"]
    value = math.nan
    if not math.isnan(lo) or not math.isnan(hi):
        # The measured text starts with the number and the unit, then may explain it: "1.19 (155 vs 131 kbit/s)".
        m = re.match(r"^(?P<n>-?∞|-?[0-9.]+(?:e-?[0-9]+)?)" + re.escape(unit) + r"(?:$| )", measured)
        if m:
            value = _number(m["n"])
    return value, lo, hi, unit, source


class Reproduction:
    """What :func:`reproduce` ran: ``verdicts`` (one row per experiment, seed and check), ``experiments`` (one
    row per experiment: id, status, seeds_run, seeds_passed, claim, source), the raw verdicts (``raw``, as
    verdicts.json has them plus every seed's checks) and ``report``, the HTML report's path."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.raw: List[Dict[str, Any]] = raw["verdicts"]
        self.report = Path(raw["report"])

    @property
    def verdicts(self) -> pd.DataFrame:
        """One row per experiment, seed and check: id, seed, check, expected and measured (the report's text),
        value (the measured number), lo and hi (the range; ±inf for a one-sided bound), unit, source (where the
        range comes from: experiments.md and the paper's value), pass, reported (a number shown beside the
        paper's, never judged), status (the experiment's verdict over all seeds: PASS, FAIL, REPORTED). value,
        lo and hi are NaN for checks that are not numeric."""
        rows = []
        for v in self.raw:
            for s in v["by_seed"]:
                for c in s["checks"]:
                    value, lo, hi, unit, source = _numbers(c["expected"], c["measured"])
                    rows.append((v["id"], s["seed"], c["what"], c["expected"], c["measured"], value, lo, hi, unit,
                                 source, c["pass"], c.get("reported", False), v["status"]))
        columns = ["id", "seed", "check", "expected", "measured", "value", "lo", "hi", "unit", "source", "pass",
                   "reported", "status"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def experiments(self) -> pd.DataFrame:
        rows = [
            (v["id"], v["status"], v["seeds"]["run"], v["seeds"]["passed"], v["claim"], v["source"])
            for v in self.raw
        ]
        return pd.DataFrame(rows, columns=["id", "status", "seeds_run", "seeds_passed", "claim", "source"])

    def __repr__(self) -> str:
        counts = pd.Series([v["status"] for v in self.raw]).value_counts().to_dict()
        return f"<Reproduction {counts}; report {self.report}>"


def experiments() -> List[str]:
    """The registered experiment ids, in report order (``convoy reproduce --list``)."""
    return list(_convoy.experiment_ids())


def reproduce(
    ids: Optional[Sequence[str]] = None,
    seeds: int = 1,
    out: Union[str, "os.PathLike[str]"] = "out/reproduce",
    jobs: Optional[int] = None,
    scenarios: Union[str, "os.PathLike[str]"] = "scenarios",
    progress: Union[bool, Callable[[int, int, str, int], None]] = True,
) -> Reproduction:
    """Reproduce the seed papers' experiments (all, or ``ids``) with seeds 1..``seeds``, as ``convoy reproduce``
    does: verdicts.json and the HTML report in ``out``, the scenario files read from ``scenarios`` (the
    repository's scenarios/ directory). ``progress(done, total, id, seed)`` is called after each run (a tqdm bar
    when True and tqdm is installed); a callback that raises is not called again, and its exception is raised
    once the runs are made."""
    callback = _progress_bar(progress, "run")
    raw = _call(
        _convoy.reproduce, list(ids or []), int(seeds), str(out), jobs or os.cpu_count() or 1, str(scenarios),
        callback,
    )
    return Reproduction(raw)
