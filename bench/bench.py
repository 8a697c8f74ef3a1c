#!/usr/bin/env python3
"""The throughput suite behind bench/run: PhotoCluster against the floor and the usual tools.

bench/run installs what it can, builds, and calls this with the tools it found. Figures only:
nothing here passes or fails on a threshold.

For each photo set (the JPEG samples, and the same photos upscaled to ~12 MP), each work
(sepia -> JPEG, gaussian blur sigma 2 -> JPEG, sepia -> PNG) and each tool, it runs the whole
set several times on one core (taskset) and on all cores, and records the median wall time,
megapixels per second per core, photos per second and the peak resident memory
(/usr/bin/time, or VmHWM of long-running cluster processes).

This file reads the options; photobench/ does the work: a module per tool (tool_*.py, with
cluster.py for what the cluster tools share), suite.py for the order, report.py, targets.py and
plot.py for the results.
"""
import argparse

from photobench.runner import Bench
from photobench.settings import TOOLS, WORKS
from photobench.suite import run


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=".")
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--pipeline", required=True)
    parser.add_argument("--floor", required=True)
    parser.add_argument("--time", default="/usr/bin/time")
    parser.add_argument("--vips", default="")
    parser.add_argument("--magick", default="")
    parser.add_argument("--pillow", dest="has_pillow", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--large", type=int, default=4, help="how many samples to upscale to 12 MP (0: none)")
    parser.add_argument("--job-copies", type=int, default=3,
                        help="embedded and tcp jobs hold each photo set this many times (each copy its own URLs), "
                             "so a job lasts long enough that its start-up is amortised as in real jobs")
    parser.add_argument("--job-megapixels", type=float, default=40,
                        help="and at least this many megapixels (small photos take milliseconds each: a job of a few "
                             "dozen would be timed mostly by its start and its end)")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds one figure may take before runs are cut")
    parser.add_argument("--pairs", type=int, default=9,
                        help="cluster jobs per embedded and tcp figure, each beside its own in-process passes; the overhead "
                             "is the median of these pairs (single jobs on a shared machine differ by up to a quarter)")
    parser.add_argument("--pair-budget", type=float, default=60.0, help="seconds one cluster figure may take before its pairs are cut (at least 3)")
    parser.add_argument("--tools", default="", help="comma-separated subset of: " + ",".join(t for t, _ in TOOLS))
    parser.add_argument("--works", default="", help="comma-separated subset of: " + ",".join(WORKS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--scratch", default="", help="directory to make the temporary directory in (photos and every tool's "
                                                      "outputs); default: the system's temporary directory")
    run(Bench(parser.parse_args()))


if __name__ == "__main__":
    main()
