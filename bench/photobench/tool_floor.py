"""The floor: libjpeg-turbo decode + encode alone, in C (bench/floor.c), and the C reference
that adds a plain C sepia."""
from .photos import total_megapixels
from .settings import QUALITY, WORKS


def measure(bench, work, set_key, files, tool, cores):
    if tool == "floor-sepia" and work != "sepia-jpeg":
        return
    png = WORKS[work]["format"] == "png"
    mp = total_megapixels(files)
    command = [bench.args.floor, "--threads", str(cores), "--runs", str(bench.runs_for_in_process(mp / 150)), "--quality", str(QUALITY), "--rgba"]
    command += ["--out", "png"] if png else []
    command += ["--sepia"] if tool == "floor-sepia" else []
    bench.in_process(work, set_key, files, tool, cores, command + files)
