"""The README's sweep from Python (docs/python.md): the pgmcc paper's Fig. 5 scenario with L1's rate from 200 to
800 kbit/s, 10 seeds each; pgmcc's goodput against L1's rate, drawn with matplotlib from the DataFrame.

    python docs/examples/python_fig5_l1_rate.py     # from the repository's root; writes docs/img/python-fig5-l1-rate.svg
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import convoy  # noqa: E402

table = convoy.sweep("scenarios/sweeps/fig5-l1-rate.toml", out="out/sweep/fig5-l1-rate")
print(table.attrs["total"], "runs,", table.attrs["ran"], "run now")

goodput = table.query("kind == 'flow' and id == 'pgmcc' and metric == 'goodput_bps'").copy()
goodput["l1_kbit"] = goodput["link.L1.rate"].str.removesuffix("kbit").astype(int)
stats = goodput.groupby("l1_kbit")["value"].agg(["mean", "sem"]) / 1e3
print(stats.round(1))

plt.rcParams["svg.hashsalt"] = "convoy"  # the same SVG bytes on every run
fig, ax = plt.subplots(figsize=(6, 3.6))
ax.errorbar(stats.index, stats["mean"], yerr=2 * stats["sem"], marker="o", capsize=3,
            label="pgmcc goodput (mean of 10 seeds, ±2 s.e.)")
ax.plot(stats.index, stats.index, "k--", linewidth=0.8, label="L1's rate")
ax.set_xlabel("L1 rate (kbit/s)")
ax.set_ylabel("goodput (kbit/s)")
ax.set_title("pgmcc Fig. 5 scenario: the session follows the slower path")
ax.legend(loc="upper left")
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig("docs/img/python-fig5-l1-rate.svg", metadata={"Date": None})
