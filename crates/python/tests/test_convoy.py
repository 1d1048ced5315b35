"""The Python package against the `convoy` command it wraps (docs/python.md).

Run by scripts/test.sh in a fresh virtual environment with the package installed from crates/python; the
`convoy` command is $CONVOY_BIN (scripts/test.sh builds target/release/convoy).
"""

import json
import os
import subprocess
import threading
import time
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import convoy

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "scenarios" / "pgmcc-fig5-acker.toml"
CONVOY = os.environ.get("CONVOY_BIN", str(ROOT / "target" / "release" / "convoy"))


def cli(*args, cwd=None):
    return subprocess.run([CONVOY, *args], capture_output=True, text=True, cwd=cwd)


def without_wall(summary):
    return {k: v for k, v in summary.items() if k != "wall_s"}


def test_a_scenario_by_path_text_and_dict_gives_the_summary_convoy_sim_writes(tmp_path):
    done = cli("sim", str(SCENARIO), "--seed", "3", "--set", "link.L1.rate=300kbit", "--quiet",
               "--out", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stderr
    expected = without_wall(json.loads((tmp_path / "cli" / "summary.json").read_text()))
    overrides = {"link.L1.rate": "300kbit"}
    by_path = convoy.sim(SCENARIO, seed=3, set=overrides)
    by_text = convoy.sim(SCENARIO.read_text(), seed=3, set=overrides, name=SCENARIO.stem)
    as_dict = tomllib.loads(SCENARIO.read_text())
    by_dict = convoy.sim(as_dict, seed=3, set=overrides, name=SCENARIO.stem)
    for r in (by_path, by_text, by_dict):
        assert without_wall(r.summary) == expected
    # The series are the files convoy sim wrote, in long form.
    throughput = pd.read_csv(tmp_path / "cli" / "throughput.csv")
    long = by_path.series("throughput")
    assert len(long) == throughput.shape[0] * (throughput.shape[1] - 1)
    pgmcc = long[long["id"] == "pgmcc"]["value"].to_numpy()
    assert (pgmcc == throughput["pgmcc"].to_numpy()).all()
    # With out, the same files as the command's.
    written = convoy.sim(SCENARIO, seed=3, set=overrides, out=tmp_path / "py")
    assert sorted(written.files) == sorted(os.listdir(tmp_path / "cli"))
    assert set(written.plots) and all(p.suffix == ".svg" and p.exists() for p in written.plots.values())
    for name in ["throughput.csv", "receivers.csv", "queue.csv"]:
        assert (tmp_path / "py" / name).read_text() == (tmp_path / "cli" / name).read_text(), name


def test_the_tables_hold_every_entity_and_metric():
    r = convoy.sim(SCENARIO, seed=1)
    flows = r.flows
    assert set(flows["flow"]) == {f["id"] for f in r.summary["flows"]}
    goodput = flows[(flows["flow"] == "pgmcc") & (flows["metric"] == "goodput_bps")]["value"].item()
    assert goodput == r.summary["flows"][0]["goodput_bps"]
    assert set(r.receivers["receiver"]) == {"PR1", "PR2"}
    assert "drops" in set(r.links["metric"])
    assert set(r.series("window").columns) == {"t_s", "id", "value"}
    with pytest.raises(KeyError, match="no series 'nothing'"):
        r.series("nothing")


GRID = """
scenario = "{scenario}"
seeds = "1..1"
metrics = ["goodput_bps", "drops"]

[axes]
"link.L1.rate" = ["300kbit", "600kbit"]
"link.L2.delay" = ["10ms", "40ms", "80ms"]
"""


def test_a_2x3_sweep_gives_the_table_convoy_sweep_writes(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID.format(scenario=SCENARIO))
    done = cli("sweep", str(grid), "--quiet", "--out", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stderr
    calls = []
    table = convoy.sweep(grid, out=tmp_path / "py", jobs=2, progress=lambda *a: calls.append(a))
    assert table.equals(pd.read_csv(tmp_path / "py" / "results.csv"))
    assert table.attrs["total"] == 6 and table.attrs["ran"] == 6 and not table.attrs["failed"]
    assert calls[-1][:2] == (6, 6)
    # The command's table, but for the run ids, which name the build that made them.
    theirs = pd.read_csv(tmp_path / "cli" / "results.csv")
    assert list(table.columns) == list(theirs.columns)
    assert table.drop(columns="run").equals(theirs.drop(columns="run"))
    # Resumed: nothing runs again; a grid as text or a dict gives the same table.
    again = convoy.sweep(grid, out=tmp_path / "py", progress=False)
    assert again.attrs["ran"] == 0 and again.attrs["reused"] == 6 and again.equals(table)
    as_text = convoy.sweep(grid.read_text(), progress=False)
    assert as_text.drop(columns="run").equals(table.drop(columns="run"))
    as_dict = convoy.sweep(tomllib.loads(grid.read_text()), progress=False)
    assert as_dict.drop(columns="run").equals(table.drop(columns="run"))
    # A progress callback that fails stops nothing: its error comes when the runs are made.

    def boom(*_):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        convoy.sweep(grid, out=tmp_path / "boom", progress=boom)
    assert convoy.sweep(grid, out=tmp_path / "boom", progress=False).attrs["ran"] == 0


def test_a_bad_scenario_raises_with_the_file_line_and_message_of_convoy_sim(tmp_path):
    bad = tmp_path / "bad.toml"
    text = SCENARIO.read_text().replace('rate = "500kbit"', 'rate = "fast"', 1)
    assert text != SCENARIO.read_text()
    bad.write_text(text)
    line = 1 + text[: text.index('rate = "fast"')].count("\n")
    with pytest.raises(convoy.ScenarioError) as caught:
        convoy.sim(bad)
    err = caught.value
    assert (err.file, err.line) == (str(bad), line)
    done = cli("sim", str(bad), "--quiet")
    assert done.returncode != 0
    assert str(err) in done.stderr, (str(err), done.stderr)
    with pytest.raises(convoy.ScenarioError) as caught:
        convoy.sim("[run]\nduration = 3\n")
    assert caught.value.file == "<text>" and caught.value.line == 2
    with pytest.raises(convoy.ScenarioError, match="--set"):
        convoy.sim(SCENARIO, set={"link.L1.rate": "fast"})
    with pytest.raises(convoy.GridError) as caught:
        convoy.sweep('scenario = "x.toml"\nseeds = "1..1"\nbogus = 1\n')
    assert caught.value.line == 3


def test_the_gil_is_released_while_the_simulator_runs():
    counted = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
        counted.append(n)

    # Long enough to measure: the scenario 20 times over.
    long_run = {"run.duration": "11000s"}
    t0 = time.perf_counter()
    convoy.sim(SCENARIO, set=long_run)
    alone = time.perf_counter() - t0
    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.05)
    t0 = time.perf_counter()
    convoy.sim(SCENARIO, set=long_run)
    during = time.perf_counter() - t0
    stop.set()
    thread.join()
    assert alone > 0.3, f"the run took {alone:.2f} s: too short to tell"
    # A thread that held no GIL while the simulator ran would count only in the switch intervals between calls
    # (a few thousand); this one counts throughout.
    assert counted[0] > 1_000_000 * during, (counted, during)


def test_reproduce_gives_every_seeds_checks_and_the_report(tmp_path):
    r = convoy.reproduce(["pgmcc-fig2-filter"], seeds=2, out=tmp_path, scenarios=ROOT / "scenarios",
                         progress=False)
    v = r.verdicts
    assert set(v["id"]) == {"pgmcc-fig2-filter"} and set(v["seed"]) == {1, 2}
    written = json.loads((tmp_path / "verdicts.json").read_text())[0]
    seed1 = v[v["seed"] == 1]
    assert list(seed1["measured"]) == [c["measured"] for c in written["checks"]]
    assert r.experiments["status"].item() == written["status"]
    assert r.report == tmp_path / "index.html" and r.report.exists()
    assert "pgmcc-fig2-filter" in convoy.experiments()
    # The numbers of the numeric checks: in range exactly when the check passed.
    numeric = v.dropna(subset=["value"])
    assert len(numeric) > 0 and (numeric["unit"] == "%").any()
    in_range = (numeric["lo"] <= numeric["value"]) & (numeric["value"] <= numeric["hi"])
    assert (in_range == numeric["pass"]).all()


def test_a_slurm_sweep_writes_the_job_array_as_the_command_does(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID.format(scenario=SCENARIO))
    plan = convoy.sweep(grid, slurm=tmp_path / "shared", convoy_command=CONVOY)
    assert plan["total"] == 6 and plan["tasks"] >= 1
    script = Path(plan["script"])
    assert script.exists() and CONVOY in script.read_text() and "--array=0-" in script.read_text()
    done = cli("sweep", str(grid), "--slurm", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == sorted(p.name for p in (tmp_path / "shared").iterdir())
    with pytest.raises(TypeError, match="needs the grid as a file"):
        convoy.sweep(grid.read_text(), slurm=tmp_path / "x")
