#!/usr/bin/env python3
"""Thumbnails in-process, on photos held in memory: pyvips `thumbnail_buffer` or Pillow's
`draft` + `thumbnail`, each JPEG written at the given quality; or the floor of a JPEG thumbnail,
the decode alone at the DCT scale PhotoCluster chooses (`decode`: Pillow's libjpeg-turbo,
`vips-decode`: libvips' `jpegload` with `shrink`).

    thumbnail_inprocess.py --library pyvips|pillow|decode|vips-decode --size N [--quality Q]
                           [--processes P] [--runs R] [--budget SECONDS] FILE...

pyvips shrinks on load as libvips' `thumbnail` does (JPEG at 1/2, 1/4 or 1/8 in the DCT, then
its reducers); Pillow's `draft` asks libjpeg for the same DCT scaling and `thumbnail` finishes
(bicubic with its reducing gap, Pillow's defaults). With P > 1 a pool of P processes, started
before timing, shares the photos. Prints one JSON object: seconds per run, photos, megapixels.
"""
import argparse
import io
import json
import multiprocessing
import os
import time

_inputs = []
_options = {}


def _init(inputs, options):
    global _inputs, _options
    _inputs, _options = inputs, options
    if options["library"] in ("pyvips", "vips-decode"):
        # One libvips thread per process (set before pyvips loads libvips): the pool gives the cores.
        os.environ.setdefault("VIPS_CONCURRENCY", "1")
        import pyvips
        pyvips.cache_set_max(0)  # every run decodes again, as the other tools do


def photocluster_dct_scale(width, height, size):
    """The JPEG DCT scale PhotoCluster decodes a `thumbnail:width=size,height=size` at
    (ReductionPlan.loadTarget): the largest 1/d that leaves the kernel at least 1.9x on both
    axes (`dctGap`) when that is no larger than its box step (ReductionPlan.boxed: per axis
    b = floor(factor / 2.5), the axis to ceil(side / b)); else the largest 1/d that still reaches
    the box step (jpeg_decode.c's choose_scale)."""
    if width <= size and height <= size:
        return 1
    if width * size <= height * size:  # fit: the limiting side takes the box's size
        scaled = (max(1, (2 * width * size + height) // (2 * height)), size)
    else:
        scaled = (size, max(1, (2 * height * size + width) // (2 * width)))

    def boxed(side, out):
        b = int(side / out / 2.5)
        return -(-side // b) if b >= 2 else side
    limit = (boxed(width, scaled[0]), boxed(height, scaled[1]))
    for d in (8, 4, 2):
        w, h = -(-width // d), -(-height // d)
        if w >= 1.9 * scaled[0] and h >= 1.9 * scaled[1]:
            if w <= limit[0] and h <= limit[1]:
                return d
            break
    for d in (8, 4, 2):
        if -(-width // d) >= limit[0] and -(-height // d) >= limit[1]:
            return d
    return 1


def thumbnail(index):
    size, quality = _options["size"], _options["quality"]
    if _options["library"] in ("decode", "vips-decode"):
        from PIL import Image
        image = Image.open(io.BytesIO(_inputs[index]))
        d = photocluster_dct_scale(image.width, image.height, size)
        if _options["library"] == "vips-decode":
            import pyvips
            return pyvips.Image.jpegload_buffer(_inputs[index], shrink=d).copy_memory().width
        image.draft("RGB", (-(-image.width // d), -(-image.height // d)))
        image.load()
        return image.width
    if _options["library"] == "pyvips":
        import pyvips
        image = pyvips.Image.thumbnail_buffer(_inputs[index], size, height=size)
        return len(image.write_to_buffer(".jpg", Q=quality))
    from PIL import Image
    image = Image.open(io.BytesIO(_inputs[index]))
    image.draft("RGB", (size, size))
    image = image.convert("RGB")
    image.thumbnail((size, size))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return out.tell()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", choices=["pyvips", "pillow", "decode", "vips-decode"], required=True)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    inputs = [open(path, "rb").read() for path in args.files]
    from PIL import Image
    megapixels = sum(Image.open(io.BytesIO(data)).size[0] * Image.open(io.BytesIO(data)).size[1] for data in inputs) / 1e6
    options = {"library": args.library, "size": args.size, "quality": args.quality}
    _init(inputs, options)
    pool = multiprocessing.Pool(args.processes, _init, (inputs, options)) if args.processes > 1 else None
    if pool:
        pool.map(thumbnail, range(len(inputs)))  # warm: processes started, libraries loaded
    else:
        thumbnail(0)
    seconds, started = [], time.perf_counter()
    for _ in range(args.runs):
        start = time.perf_counter()
        if pool:
            pool.map(thumbnail, range(len(inputs)), chunksize=1)
        else:
            for index in range(len(inputs)):
                thumbnail(index)
        seconds.append(time.perf_counter() - start)
        if time.perf_counter() - started > args.budget:
            break
    if pool:
        pool.close()
    print(json.dumps({"seconds": seconds, "photos": len(inputs), "megapixels": megapixels}))


if __name__ == "__main__":
    main()
