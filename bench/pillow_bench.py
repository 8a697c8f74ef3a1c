#!/usr/bin/env python3
"""Pillow in-process: decode -> sepia / blur -> encode on photos held in memory.

    pillow_bench.py --work sepia|blur --format jpeg|png [--quality Q] [--processes N]
                    [--runs R] [--budget SECONDS] FILE...

Sepia is PhotoCluster's at intensity 0.8 folded into one colour matrix,
0.2 * I + 0.8 * M (Pillow cannot clamp M * rgb before blending, which changes nothing for
most pixels and costs the same). Blur is ImageFilter.GaussianBlur(2) (sigma 2). JPEG is
written at the given quality with Pillow's default 4:2:0 subsampling; PNG with Pillow's
default compression (level 6). With N > 1 a pool of N processes, started before timing,
shares the photos. Prints one JSON object like bench/floor.c.
"""
import argparse
import io
import json
import multiprocessing
import sys
import time

from PIL import Image, ImageFilter

M = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
I = 0.8
MATRIX = tuple(
    v
    for row in range(3)
    for v in [((1 - I) if col == row else 0) + I * M[row][col] for col in range(3)] + [0]
)

_inputs = []
_options = None


def _init(inputs, options):
    global _inputs, _options
    _inputs = inputs
    _options = options


def process(index):
    options = _options
    image = Image.open(io.BytesIO(_inputs[index]))
    image = image.convert("RGB")
    if options["work"] == "sepia":
        image = image.convert("RGB", MATRIX)
    else:
        image = image.filter(ImageFilter.GaussianBlur(2))
    out = io.BytesIO()
    if options["format"] == "png":
        image.save(out, "PNG")
    else:
        image.save(out, "JPEG", quality=options["quality"])
    return out.tell()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", choices=["sepia", "blur"], default="sepia")
    parser.add_argument("--format", choices=["jpeg", "png"], default="jpeg")
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=60.0, help="stop after this many seconds (at least one run)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    inputs = []
    for path in args.files:
        with open(path, "rb") as f:
            inputs.append(f.read())
    megapixels = 0.0
    for data in inputs:
        with Image.open(io.BytesIO(data)) as image:
            megapixels += image.width * image.height / 1e6
    options = {"work": args.work, "format": args.format, "quality": args.quality}
    _init(inputs, options)

    pool = None
    if args.processes > 1:
        pool = multiprocessing.get_context("fork").Pool(args.processes, _init, (inputs, options))
        pool.map(process, range(min(len(inputs), args.processes)))  # warm up every process
    seconds = []
    bytes_out = 0
    spent = 0.0
    for _ in range(args.runs):
        start = time.perf_counter()
        if pool:
            sizes = pool.map(process, range(len(inputs)), chunksize=1)
        else:
            sizes = [process(i) for i in range(len(inputs))]
        elapsed = time.perf_counter() - start
        seconds.append(elapsed)
        bytes_out = sum(sizes)
        spent += elapsed
        if spent + elapsed > args.budget:
            break
    if pool:
        pool.close()
        pool.join()
    json.dump({"megapixels": megapixels, "photos": len(inputs), "seconds": seconds, "bytes_out": bytes_out}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
