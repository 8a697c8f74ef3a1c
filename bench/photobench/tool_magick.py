"""ImageMagick (`convert` or `magick`), one single-threaded process per photo."""
import os

from .settings import QUALITY, WORKS


def measure(bench, work, set_key, files, tool, cores):
    a = bench.args
    if not a.magick:
        return bench.missing(tool)
    spec = WORKS[work]
    png = spec["format"] == "png"
    env = dict(os.environ, MAGICK_THREAD_LIMIT="1", OMP_NUM_THREADS="1")

    def command(path, out):
        stem = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
        op = ["-sepia-tone", "80%"] if spec["filter"] == "sepia" else ["-blur", "0x2"]
        return [a.magick, path] + op + ([stem + ".png"] if png else ["-quality", str(QUALITY), stem + ".jpg"])

    bench.per_photo(work, set_key, files, tool, cores, command, env)
