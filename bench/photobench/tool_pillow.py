"""Pillow, in process (bench/pillow_bench.py): N processes for N cores."""
import os
import sys

from .settings import QUALITY, WORKS


def measure(bench, work, set_key, files, tool, cores):
    a = bench.args
    if not a.has_pillow:
        return bench.missing(tool)
    spec = WORKS[work]
    command = [sys.executable, os.path.join(bench.root, "bench", "pillow_bench.py"), "--work", spec["filter"].split(":")[0],
               "--format", spec["format"], "--quality", str(QUALITY), "--processes", str(cores),
               "--runs", str(a.runs), "--budget", str(a.budget)]
    bench.in_process(work, set_key, files, tool, cores, command + files)
