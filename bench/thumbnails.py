#!/usr/bin/env python3
"""Thumbnail benchmark behind bench/run: 12- and 24-megapixel JPEGs to 256 and 512 px, PhotoCluster
(`cluster submit --filter thumbnail`, the whole command: process start, downloads over loopback
HTTP, outputs written) against pyvips `thumbnail` in-process, the `vips thumbnail` command,
Pillow's `draft` + `thumbnail` in-process and ImageMagick's `-thumbnail`, on one core (taskset)
and on all cores. Writes bench/results/thumbnails.{json,md,png}. Figures only: nothing here
passes or fails on a threshold.

    thumbnails.py --cluster BIN --pipeline BIN [--floor BIN] [--vips BIN] [--magick BIN] [--runs N] [--photos N]
                  [--tools a,b] [--works thumb-256,thumb-512] [--sets 12mp,24mp] [--cores 1] [--scratch DIR]
"""
import argparse

from photobench.thumbnails import TOOLS, WORKS, Thumbnails


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--pipeline", required=True, help="PipelineBenchmark, whose `serve` is the photo server")
    parser.add_argument("--floor", default="", help="bench/floor.c built, for the worker-decode row")
    parser.add_argument("--vips", default="")
    parser.add_argument("--magick", default="")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--photos", type=int, default=4, help="samples upscaled to each size")
    parser.add_argument("--tools", default="", help="subset of: " + ",".join(t for t, _ in TOOLS))
    parser.add_argument("--works", default="", help="subset of: " + ",".join(WORKS))
    parser.add_argument("--sets", default="", help="subset of: 12mp,24mp")
    parser.add_argument("--cores", type=int, default=0, help="only this many cores (default: one and all)")
    parser.add_argument("--scratch", default="")
    Thumbnails(parser.parse_args()).run()


if __name__ == "__main__":
    main()
