"""libvips' `vips` command, one single-threaded process per photo (as scripts use it); with
PNG, also at compression=1 (vips-fast)."""
import os

from .settings import QUALITY, SEPIA_BLEND, WORKS


def measure(bench, work, set_key, files, tool, cores):
    a = bench.args
    if not a.vips:
        return bench.missing(tool)
    spec = WORKS[work]
    png = spec["format"] == "png"
    if tool == "vips-fast" and not png:
        return
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    matrix = os.path.join(bench.tmp, "sepia.mat")
    with open(matrix, "w") as f:
        f.write("3 3\n" + "\n".join(" ".join(f"{v:.4f}" for v in row) for row in SEPIA_BLEND) + "\n")

    def command(path, out):
        stem = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
        target = stem + (".png[compression=1]" if tool == "vips-fast" else ".png" if png else f".jpg[Q={QUALITY}]")
        if spec["filter"] == "sepia":
            return [a.vips, "recomb", path, target, matrix]
        return [a.vips, "gaussblur", path, target, "2"]

    bench.per_photo(work, set_key, files, tool, cores, command, env)
