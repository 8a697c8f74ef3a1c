"""The thumbnail benchmark's report: a table on the terminal, bench/results/thumbnails.{json,md}
and a plot (thumbnails.png, with matplotlib when it is installed)."""
import json
import os
import statistics

LABELS = {"embedded": "PhotoCluster (whole command)", "pyvips": "pyvips in-process", "decode": "decode alone (Pillow)",
          "vips-decode": "decode alone (libvips)", "worker-decode": "decode alone (the worker's libjpeg-turbo)", "vips": "vips command", "pillow": "Pillow in-process", "magick": "ImageMagick"}


def find(bench, work, set_key, tool, cores):
    return next((r for r in bench.results if (r["work"], r["set"], r["tool"], r["cores"]) == (work, set_key, tool, cores)), None)


def round_ratios(ours, theirs):
    """Our photos/s over theirs in each round. The tools of a round run back to back, so a slow
    minute of a shared machine weighs on both sides of its ratio; the ratio of the medians mixes
    rounds. Empty when a tool missed a round."""
    if len(ours["seconds"]) != len(theirs["seconds"]):
        return []
    return [(ours["photos"] / a) / (theirs["photos"] / b) for a, b in zip(ours["seconds"], theirs["seconds"])]


def describe_rounds(values):
    """' (rounds: median M×, L–H×)', or nothing without rounds to pair."""
    if not values:
        return ""
    ordered = sorted(values)
    return f" (rounds: median {statistics.median(ordered):.2f}×, {ordered[0]:.2f}–{ordered[-1]:.2f}×)"


def ratios(bench):
    """PhotoCluster's photos/s over pyvips' in-process and over the decode-alone floor, per set,
    size and cores."""
    rows = []
    for set_key in bench.sets:
        for work in sorted({r["work"] for r in bench.results}):
            for cores in sorted({1, bench.cores}):
                ours, theirs = find(bench, work, set_key, "embedded", cores), find(bench, work, set_key, "pyvips", cores)
                floor = find(bench, work, set_key, "decode", cores)
                if ours and theirs:
                    rows.append({"set": set_key, "work": work, "cores": cores, "photocluster_photos_per_s": ours["photos_per_s"],
                                 "pyvips_photos_per_s": theirs["photos_per_s"], "ratio": ours["photos_per_s"] / theirs["photos_per_s"],
                                 "ratio_per_round": round_ratios(ours, theirs),
                                 "floor_ratio_per_round": round_ratios(ours, floor) if floor else []})
    return rows


def beside_the_decoder(bench, comparison):
    lines = []
    for r in comparison:
        decoder = find(bench, r["work"], r["set"], "worker-decode", r["cores"])
        if not decoder or r["cores"] != 1:
            continue
        ours, decode, pyvips = (1000 / x for x in (r["photocluster_photos_per_s"], decoder["photos_per_s"], r["pyvips_photos_per_s"]))
        lines.append(f"- {r['set']} → {r['work'].split('-')[1]} px, 1 core: "
                     f"{ours:.1f} ms a photo, of it {decode:.1f} ms decoding: {ours - decode:.1f} ms beside the decoder; "
                     f"1.2× pyvips ({pyvips:.1f} ms) would leave {pyvips / 1.2 - decode:.1f} ms")
    return lines


def write(bench, results_dir):
    os.makedirs(results_dir, exist_ok=True)
    tools = [t for t in LABELS if any(r["tool"] == t for r in bench.results)]
    cores = sorted({1, bench.cores})
    header = "| photos → size | " + " | ".join(LABELS[t] for t in tools) + " |"
    md = ["# Thumbnails", "",
          f"Photos per second, one core / {bench.cores} cores (median of the runs); JPEG quality 85. Load average "
          f"{bench.load_before:.2f} at the start, {bench.load_after:.2f} at the end; {bench.elapsed / 60:.1f} min.", "",
          header, "|---" * (len(tools) + 1) + "|"]
    for set_key in bench.sets:
        for work in sorted({r["work"] for r in bench.results}):
            cells = []
            for tool in tools:
                figures = [find(bench, work, set_key, tool, c) for c in cores]
                cells.append(" / ".join(f"{f['photos_per_s']:.1f}" if f else "–" for f in figures))
            md.append(f"| {set_key} → {work.split('-')[1]} px | " + " | ".join(cells) + " |")
    md.append("")
    comparison = ratios(bench)
    if comparison:
        md += ["PhotoCluster against pyvips `thumbnail` in-process:", ""]
        md += [f"- {r['set']} → {r['work'].split('-')[1]} px, {r['cores']} core{'s' if r['cores'] > 1 else ''}: "
               f"{r['photocluster_photos_per_s']:.1f} / {r['pyvips_photos_per_s']:.1f} photos/s = {r['ratio']:.2f}×"
               + describe_rounds(r["ratio_per_round"]) for r in comparison]
        md.append("")
    floors = [(r, find(bench, r["work"], r["set"], "decode", r["cores"])) for r in comparison]
    md += [f"- {r['set']} → {r['work'].split('-')[1]} px, {r['cores']} core{'s' if r['cores'] > 1 else ''}: "
           f"{r['photocluster_photos_per_s']:.1f} photos/s = {r['photocluster_photos_per_s'] / f['photos_per_s']:.2f}× the decode-alone floor "
           f"({f['photos_per_s']:.1f})" + describe_rounds(r["floor_ratio_per_round"]) for r, f in floors if f]
    if floors:
        md.append("")
    beside = beside_the_decoder(bench, comparison)
    if beside:
        md += ["Beside the decoder, on one core: the whole command's time a photo less the decode alone by the libjpeg-turbo the worker links "
               "(process start, download, resize, encode, write), and what 1.2× pyvips' speed would leave for them:", ""] + beside + [""]
    if bench.psnr:
        md += ["Quality: PSNR (dB) of each thumbnail against Pillow's exact Lanczos-3 of the whole decoded photo "
               "(`resize(LANCZOS, reducing_gap=None)`), outputs written as PNG:", "",
               "| photo → size | " + " | ".join(LABELS[t] for t in ("embedded", "pyvips", "pillow")) + " |", "|---|---|---|---|"]
        for key in sorted({(q["set"], q["work"], q["photo"]) for q in bench.psnr}):
            cells = [next((f"{q['psnr']:.2f}" for q in bench.psnr if (q["set"], q["work"], q["photo"], q["tool"]) == key + (t,)), "–")
                     for t in ("embedded", "pyvips", "pillow")]
            md.append(f"| {key[2]} → {key[1].split('-')[1]} px | " + " | ".join(cells) + " |")
        md.append("")
    md += [f"- {n}" for n in bench.notes]
    with open(os.path.join(results_dir, "thumbnails.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(results_dir, "thumbnails.json"), "w") as f:
        json.dump({"cores": bench.cores, "load_average": [bench.load_before, bench.load_after], "elapsed_seconds": bench.elapsed,
                   "results": bench.results, "against_pyvips": comparison, "psnr": bench.psnr, "notes": bench.notes}, f, indent=2)
    print("\n".join(md))
    plotted = plot(bench, tools, cores, os.path.join(results_dir, "thumbnails.png"))
    print(f"wrote bench/results/thumbnails.json, thumbnails.md{', thumbnails.png' if plotted else ''}")


def plot(bench, tools, cores, path):
    """Bars of photos per second by tool, one panel per set and size, one core and all cores."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        bench.notes.append("no plot: matplotlib is not installed")
        return False
    panels = [(s, w) for s in bench.sets for w in sorted({r["work"] for r in bench.results})]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4), squeeze=False)
    for (set_key, work), ax in zip(panels, axes.flat):
        width = 0.8 / len(cores)
        for i, c in enumerate(cores):
            values = [(find(bench, work, set_key, t, c) or {}).get("photos_per_s", 0) for t in tools]
            bars = ax.bar([x + i * width for x in range(len(tools))], values, width,
                          color=["#c0392b" if t == "embedded" else "#2980b9" for t in tools], alpha=1 if c == 1 else 0.5,
                          label=f"{c} core{'s' if c > 1 else ''}")
            ax.bar_label(bars, fmt="%.0f", fontsize=7)
        ax.set_xticks([x + width * (len(cores) - 1) / 2 for x in range(len(tools))])
        ax.set_xticklabels([LABELS[t].split(" (")[0] for t in tools], rotation=30, ha="right", fontsize=7)
        ax.set_title(f"{set_key} JPEG → {work.split('-')[1]} px", fontsize=9)
        ax.set_ylabel("photos per second", fontsize=8)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("Thumbnails (red: PhotoCluster, whole command with downloads; pale: all cores)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True
