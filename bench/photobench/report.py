"""The report: bench/results/throughput.md (tables), throughput.json (every figure) and
throughput.png (plot.py), and the same tables as text on standard output."""
import json
import os
import time

from .machine import cpu_name, log
from .photos import total_megapixels
from .plot import plot
from .settings import QUALITY, TOOLS, WORKS
from .targets import targets as judge_targets

METHOD = (
    "How each tool runs: the floor, the C reference, the PhotoCluster pipeline and Pillow hold the photos in memory "
    "and time only decode → filter → encode (N threads or N processes for all cores), except the pipeline end to end, "
    "which downloads each photo from the same loopback server as the cluster and writes each output durably, "
    "a pass holding the set as many times as a cluster job (in a plain loop, or through the worker's own engine: its "
    "stage operations, queues and credit window without ZeroMQ or a coordinator); `vips` and `convert` run one "
    "process per photo (xargs -P N, each single-threaded), as they are used from scripts; `cluster submit` is timed "
    "as a whole command, downloading over loopback HTTP (LoopbackHTTP) and writing files (each flushed to the disk "
    "before it takes its name); the TCP figure is the `cluster submit --coordinator` command against a running "
    "coordinator and worker. A cluster job holds the set several times (at least 3 copies and "
    "{job_megapixels:.0f} MP); \"the job alone\" is the coordinator's time from accepting it to its last "
    "photo, and the cluster's overhead is the median, over the row's jobs, of each job against in-process passes made "
    "beside it (just before it or just after, in turn): over the job's photos through the worker's own engine (the "
    "same downloads, stage operations and durable writes, so what remains is the cluster's own cost), over the job's "
    "photos end to end in a plain loop, and the stages alone over the set. A process's first pass is slower than its "
    "later ones, so an embedded job (the first in its process) is set beside the first pass of a fresh process, and a "
    "job on the running TCP worker beside a second pass. The 12-MP photos are the "
    "samples upscaled with Lanczos and saved at quality 90: smoother than camera photos, so every tool decodes "
    "them faster than real 12-MP photos."
)


def earlier_figures(bench, name):
    """bench/results/NAME.json from another benchmark of `make bench`, if it ran."""
    path = os.path.join(bench.root, "bench", "results", name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def report(bench):
    results_dir = os.path.join(bench.root, "bench", "results")
    os.makedirs(results_dir, exist_ok=True)
    targets = judge_targets(bench)
    viewport = earlier_figures(bench, "viewport")
    dispatch = earlier_figures(bench, "dispatch")

    md = ["# PhotoCluster throughput", ""]
    md.append(f"`bench/run` on {bench.cores} cores ({cpu_name()}), {time.strftime('%Y-%m-%d %H:%M')}, {bench.elapsed / 60:.1f} min. "
              f"Median of up to {bench.args.runs} runs over the whole set (the cluster rows: up to {bench.args.pairs} jobs); MP/s per core = input megapixels / wall time / cores used; "
              f"one core = pinned with taskset to core 0; JPEG at quality {QUALITY}, 4:2:0. Peak memory = max resident set of the "
              "process (for command-line tools the largest one; for TCP the worker).")
    md.append("")
    text = []
    tool_tables(bench, md, text)
    memory_table(bench.memory, md, text)
    if targets:
        md += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
        text.append("Targets")
        for t in targets:
            md.append(f"| {t['target']} | {t['figure']} | {'yes' if t['met'] else 'no'} |")
            text.append(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['figure']}")
        md.append("")
        text.append("")
    viewport_table(viewport, md, text)
    dispatch_table(dispatch, md, text)
    if bench.notes:
        md += ["## Notes", ""] + [f"- {n}" for n in bench.notes] + [""]
        text.append("Notes")
        text += [f"  - {n}" for n in bench.notes]
        text.append("")
    md += [METHOD.format(job_megapixels=bench.args.job_megapixels)]
    data = {
        "machine": {"cores": bench.cores, "cpu": cpu_name()}, "quality": QUALITY, "runs": bench.args.runs, "pairs": bench.args.pairs,
        "elapsed_seconds": bench.elapsed, "load_average": [bench.load_before, bench.load_after], "sets": {k: [os.path.basename(p) for p in v] for k, v in bench.sets},
        "results": bench.results, "memory": bench.memory, "targets": targets, "viewport": viewport, "dispatch": dispatch, "notes": bench.notes,
    }
    with open(os.path.join(results_dir, "throughput.json"), "w") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
    with open(os.path.join(results_dir, "throughput.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    log("")
    log("\n".join(text))
    plotted = plot(bench, os.path.join(results_dir, "throughput.png"))
    log(f"wrote bench/results/throughput.json, throughput.md{', throughput.png' if plotted else ''} in {bench.elapsed / 60:.1f} min")


def tool_tables(bench, md, text):
    """One table per work and photo set: each tool on one core and on all."""
    multi = bench.cores
    set_labels = {key: f"{key} ({len(files)} photos, {total_megapixels(files):.1f} MP)" for key, files in bench.sets}
    for set_key, _ in bench.sets:
        for work in WORKS:
            rows = [r for r in bench.results if r["work"] == work and r["set"] == set_key]
            if not rows:
                continue
            md.append(f"## {WORKS[work]['label']} — {set_labels[set_key]}")
            md.append("")
            header = ["tool", "1 core MP/s", "1 core photos/s", f"{multi} cores MP/s/core", f"{multi} cores photos/s", "peak MB", "vs floor (1 core)", "runs"]
            md.append("| " + " | ".join(header) + " |")
            md.append("|" + "---|" * len(header))
            text.append(f"{WORKS[work]['label']} — {set_labels[set_key]}")
            text.append(f"  {'tool':44} {'1c MP/s':>8} {'1c ph/s':>8} {str(multi) + 'c MP/s/c':>10} {str(multi) + 'c ph/s':>8} {'peak MB':>8} {'vs floor':>9}")
            floor = bench.find(work, set_key, "floor", 1)
            for tool, label in TOOLS:
                one, many = bench.find(work, set_key, tool, 1), bench.find(work, set_key, tool, multi) if multi > 1 else None
                if not one and not many:
                    continue

                def f(r, key, fmt):
                    return fmt.format(r[key]) if r else "–"
                peak = max((r["max_rss_mb"] for r in (one, many) if r), default=float("nan"))
                vs = f"{one['mp_per_s_per_core'] / floor['mp_per_s_per_core'] * 100:.0f}%" if one and floor else "–"
                runs = "/".join(str(r["runs"]) for r in (one, many) if r)
                cells = [label.strip(), f(one, "mp_per_s_per_core", "{:.1f}"), f(one, "photos_per_s", "{:.1f}"),
                         f(many, "mp_per_s_per_core", "{:.1f}"), f(many, "photos_per_s", "{:.1f}"), f"{peak:.0f}", vs, runs]
                md.append("| " + " | ".join(cells) + " |")
                text.append(f"  {label[:44]:44} {cells[1]:>8} {cells[2]:>8} {cells[3]:>10} {cells[4]:>8} {cells[5]:>8} {vs:>9}")
            md.append("")
            text.append("")


def memory_table(memory, md, text):
    if not memory:
        return
    md += ["## Worker memory against job size", "", "Coordinator + 1 worker over TCP, sepia → JPEG, 12-MP photos.", "",
           "| photos in the job | worker concurrency | worker cache MB | worker peak MB | coordinator peak MB | client peak MB | seconds |",
           "|---|---|---|---|---|---|---|"]
    text.append("Worker memory against job size (coordinator + 1 worker over TCP, sepia → JPEG, 12-MP photos)")
    for m in memory:
        md.append(f"| {m['photos']} | {m['worker_concurrency']} | {m['cache_mb']} | {m['worker_peak_rss_mb']:.0f} | {m['coordinator_peak_rss_mb']:.0f} | {m['client_peak_rss_mb']:.0f} | {m['seconds']:.2f} |")
        text.append(f"  {m['photos']:4} photos, cache {m['cache_mb']:3} MB: worker {m['worker_peak_rss_mb']:.0f} MB, coordinator {m['coordinator_peak_rss_mb']:.0f} MB, client {m['client_peak_rss_mb']:.0f} MB, {m['seconds']:.2f} s")
    md.append("")
    text.append("")


def viewport_table(viewport, md, text):
    """ViewportBenchmark's figures (bench/results/viewport.json), when it ran before."""
    if not viewport:
        return
    md += ["## Viewport (from bench/results/viewport.json, ViewportBenchmark)", "", "| figure | value |", "|---|---|"]
    text.append("Viewport (bench/results/viewport.json)")
    c, s, f = viewport.get("cancel_latency_ms", {}), viewport.get("settle_to_first_visible_ms", {}), viewport.get("fast_fling", {})
    rows = []
    if c:
        rows.append(("cancel latency p50 / p99", f"{c.get('p50', float('nan')):.2f} ms / {c.get('p99', float('nan')):.2f} ms ({c.get('samples', '?')} changes)"))
    if f:
        bw = f.get("bytes_wasted", 0) / max(1, f.get("bytes_downloaded", 1)) * 100
        pw = f.get("pixels_wasted", 0) / max(1, f.get("pixels_processed", 1)) * 100
        rows.append(("fast fling: wasted bytes, pixels", f"{bw:.1f}% of {f.get('bytes_downloaded', 0) / 1e6:.1f} MB, {pw:.1f}% of {f.get('pixels_processed', 0) / 1e6:.1f} MP"))
    if s:
        rows.append(("settle → first visible photo p50 / p99", f"{s.get('p50', float('nan')):.1f} ms / {s.get('p99', float('nan')):.1f} ms"))
    if "workers" in viewport:
        rows.append(("worker processes", str(viewport["workers"])))
    for k, v in rows:
        md.append(f"| {k} | {v} |")
        text.append(f"  {k}: {v}")
    md.append("")
    text.append("")


def dispatch_table(dispatch, md, text):
    """DispatchBenchmark's figures (bench/results/dispatch.json), when it ran before."""
    if not (dispatch and dispatch.get("rows")):
        return
    md += [f"## Coordinator dispatch (from bench/results/dispatch.json, DispatchBenchmark; outputs on {dispatch.get('outputs_on', '?')})", "",
           "| photos | simulated workers | graphs/s end to end | loop busy | loop limit, graphs/s | coordinator peak MB |", "|---|---|---|---|---|---|"]
    text.append("Coordinator dispatch (bench/results/dispatch.json)")
    for r in dispatch["rows"]:
        md.append(f"| {r['photos']} | {r['simulated_workers']} | {r['graphs_per_second']:.0f} | {r['loop_busy'] * 100:.0f}% | "
                  f"{r['loop_limit_graphs_per_second']:.0f} | {r['coordinator_peak_rss_mb']:.0f} |")
        text.append(f"  {r['photos']} photos, {r['simulated_workers']} workers: {r['graphs_per_second']:.0f} graphs/s, loop {r['loop_busy'] * 100:.0f}% busy, "
                    f"{r['coordinator_peak_rss_mb']:.0f} MB")
    md.append("")
    text.append("")
