"""The photo sets: the JPEG samples, and some of them upscaled to ~12 MP."""
import math
import os
import shutil
import subprocess
import sys

from .machine import log


def jpeg_size(path):
    """(width, height) from a JPEG's frame header."""
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    raise ValueError(f"no JPEG frame header in {path}")


def megapixels(path):
    w, h = jpeg_size(path)
    return w * h / 1e6


def total_megapixels(files):
    return sum(megapixels(p) for p in files)


def upscale(args, source, target):
    """To ~12 MP with Lanczos, saved as JPEG quality 90 (like a camera's file)."""
    if args.has_pillow:
        code = (
            "import sys, math\nfrom PIL import Image\n"
            "im = Image.open(sys.argv[1]).convert('RGB')\n"
            "s = math.sqrt(12e6 / (im.width * im.height))\n"
            "im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS).save(sys.argv[2], quality=90)\n"
        )
        subprocess.run([sys.executable, "-c", code, source, target], check=True)
    elif args.vips:
        w, h = jpeg_size(source)
        s = math.sqrt(12e6 / (w * h))
        subprocess.run([args.vips, "resize", source, target + "[Q=90]", f"{s:.6f}", "--kernel", "lanczos3"], check=True)
    else:
        raise SystemExit("neither Pillow nor vips is available to make the 12-megapixel photos")


def make_sets(bench):
    """Copies the samples (and --large of them upscaled) into the directory the photo server
    serves; sets bench.sets to [(key, [paths])] and bench.serve_dir."""
    photos = os.path.join(bench.root, "samples", "photos")
    jpegs = sorted(f for f in os.listdir(photos) if f.lower().endswith((".jpg", ".jpeg")))
    serve = os.path.join(bench.tmp, "serve")
    os.makedirs(serve)
    small = []
    for name in jpegs:
        shutil.copy(os.path.join(photos, name), os.path.join(serve, name))
        small.append(os.path.join(serve, name))
    large = []
    chosen = jpegs[: bench.args.large] if bench.args.large > 0 else []
    for name in chosen:
        target = os.path.join(serve, "12mp-" + name)
        upscale(bench.args, os.path.join(photos, name), target)
        large.append(target)
    bench.sets = [("samples", small)]
    if large:
        bench.sets.append(("12mp", large))
    for key, files in bench.sets:
        log(f"  set {key}: {len(files)} photos, {total_megapixels(files):.1f} MP")
    bench.serve_dir = serve
