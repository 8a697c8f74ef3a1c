"""throughput.png: MP/s per core by tool, one panel per work and photo set (matplotlib, else
gnuplot)."""
import os
import shutil
import subprocess

from .settings import SHORT, TOOLS, WORKS


def plot(bench, path):
    """Grouped bars: MP/s per core by tool, one panel per work and photo set."""
    panels = [(s, w) for s, _ in bench.sets for w in WORKS if any(r["set"] == s and r["work"] == w for r in bench.results)]
    if not panels:
        return False
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return gnuplot(bench, path, panels)
    columns = len(WORKS)
    rows = len(bench.sets)
    fig, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4.2 * rows + 0.6), squeeze=False)
    multi = bench.cores
    for (set_key, work), ax in zip([(s, w) for s, _ in bench.sets for w in WORKS], axes.flat):
        tools = [t for t, _ in TOOLS if bench.find(work, set_key, t, 1) or bench.find(work, set_key, t, multi)]
        if not tools:
            ax.axis("off")
            continue
        ys = range(len(tools))
        one = [(bench.find(work, set_key, t, 1) or {}).get("mp_per_s_per_core", 0) for t in tools]
        many = [(bench.find(work, set_key, t, multi) or {}).get("mp_per_s_per_core", 0) for t in tools]
        h = 0.4
        colours = ["#c0392b" if t.startswith(("pipeline", "embedded", "tcp")) else "#7f8c8d" if t.startswith("floor") else "#2980b9" for t in tools]
        ax.barh([y - h / 2 for y in ys], one, h, color=colours, label="1 core")
        ax.barh([y + h / 2 for y in ys], many, h, color=colours, alpha=0.5, label=f"{multi} cores (per core)")
        for y, v in zip(ys, one):
            if v:
                ax.text(v, y - h / 2, f" {v:.0f}", va="center", fontsize=8)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([SHORT[t] for t in tools], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("megapixels per second per core (higher is better)", fontsize=8)
        ax.set_title(f"{WORKS[work]['label']} — {set_key}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlim(0, max(one + many) * 1.18)
    axes.flat[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"PhotoCluster throughput by tool and photo size ({bench.cores} cores; red: PhotoCluster, grey: libjpeg-turbo floor)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def gnuplot(bench, path, panels):
    if not shutil.which("gnuplot"):
        bench.notes.append("no plot: neither matplotlib nor gnuplot is installed")
        return False
    data = os.path.join(bench.tmp, "plot.dat")
    with open(data, "w") as f:
        for set_key, work in panels:
            for tool, label in TOOLS:
                r = bench.find(work, set_key, tool, 1)
                if r:
                    f.write(f"\"{set_key} {work} {tool}\" {r['mp_per_s_per_core']:.1f}\n")
    script = (f"set terminal pngcairo size 1200,{200 + 16 * len(bench.results)}; set output '{path}';"
              "set style fill solid; set xtics rotate by -60 font ',7'; set ylabel 'MP/s per core (1 core)';"
              f"plot '{data}' using 2:xtic(1) with boxes notitle")
    return subprocess.run(["gnuplot", "-e", script]).returncode == 0
