#!/usr/bin/env python3
"""Makes camera-like 12-megapixel photos and a zone plate, and measures resized outputs against
the exact Lanczos-3 reference, with Pillow and numpy: the independent implementation the resample
quality tests (Tests/ClusterCLITests/ResampleQualityTests.swift) and the thumbnail benchmark
check PhotoCluster's `resize` and `thumbnail` against. Run with the test tools' venv
(scripts/install-test-tools).

    resample_quality.py make SAMPLE... --out DIR [--count N]
        writes camera-N.jpg (4032x3024, quality 90, 4:2:0, film-like grain: about 2.5-3 bits per
        pixel, as a phone's or camera's file) from the samples, and zoneplate.png (4032x3024,
        cos(k r^2), rising to 0.3 cycles per pixel at the corners)
    resample_quality.py compare SOURCE OUTPUT [SOURCE OUTPUT...]
        prints one JSON object per OUTPUT: its size, PSNR (all pixels, R, G, B) and SSIM (luma,
        7x7 windows) against its SOURCE decoded whole and resized to OUTPUT's size with
        Image.resize(LANCZOS, reducing_gap=None), and the edge contrast (mean absolute luma
        gradient) relative to that reference
"""
import json
import math
import sys
from pathlib import Path

import numpy as np
from PIL import Image

WIDTH, HEIGHT = 4032, 3024


def camera_like(sample, out, seed, size=(WIDTH, HEIGHT)):
    """The sample upscaled (12 MP unless told), with luma and a little chroma grain, saved as a
    camera does."""
    width, height = size
    image = Image.open(sample).convert("RGB").resize((width, height), Image.LANCZOS)
    rng = np.random.default_rng(seed)
    pixels = np.asarray(image, dtype=np.float32)
    pixels += 6.0 * rng.standard_normal((height, width, 1), dtype=np.float32)
    pixels += 2.0 * rng.standard_normal((height, width, 3), dtype=np.float32)
    pixels = np.clip(pixels + 0.5, 0, 255).astype(np.uint8)
    Image.fromarray(pixels).save(out, quality=90, subsampling=2)


def zone_plate(out):
    """cos(k r^2): the local frequency k r / pi reaches 0.3 cycles per pixel at the corners."""
    x = (np.arange(WIDTH) - WIDTH / 2 + 0.5) ** 2
    y = (np.arange(HEIGHT) - HEIGHT / 2 + 0.5) ** 2
    r2 = y[:, None] + x[None, :]
    k = 0.3 * math.pi / math.hypot(WIDTH / 2, HEIGHT / 2)
    grey = (127.5 + 127.5 * np.cos(k * r2)).round().astype(np.uint8)
    Image.fromarray(grey).convert("RGB").save(out, compress_level=1)


def luma(rgb):
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def box_mean(a, n=7):
    """Means over every n x n window (valid part), by summed-area tables."""
    s = np.pad(a, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    return (s[n:, n:] - s[:-n, n:] - s[n:, :-n] + s[:-n, :-n]) / (n * n)


def ssim(a, b):
    """Wang et al.'s SSIM on luma with uniform 7x7 windows (scikit-image's default shape)."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    ma, mb = box_mean(a), box_mean(b)
    va, vb = box_mean(a * a) - ma * ma, box_mean(b * b) - mb * mb
    cov = box_mean(a * b) - ma * mb
    n = 49 / 48  # sample variances, as scikit-image
    va, vb, cov = va * n, vb * n, cov * n
    return float((((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))).mean())


def psnr(a, b):
    mse = float(((a - b) ** 2).mean())
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def edge_contrast(y):
    return float(np.abs(np.diff(y, axis=0)).mean() + np.abs(np.diff(y, axis=1)).mean())


def compare(pairs):
    for source, path in pairs:
        whole = Image.open(source).convert("RGB")
        output = Image.open(path).convert("RGB")
        reference = whole.resize(output.size, Image.LANCZOS, reducing_gap=None)
        a = np.asarray(output, dtype=np.float64)
        b = np.asarray(reference, dtype=np.float64)
        ya, yb = luma(a), luma(b)
        print(json.dumps({
            "file": str(path), "width": output.width, "height": output.height,
            "psnr": round(psnr(a, b), 2), "ssim": round(ssim(ya, yb), 4),
            "edge": round(edge_contrast(ya) / max(edge_contrast(yb), 1e-9), 4),
        }), flush=True)


def main(arguments):
    if arguments[:1] == ["make"]:
        out = Path(arguments[arguments.index("--out") + 1])
        count = int(arguments[arguments.index("--count") + 1]) if "--count" in arguments else None
        samples = [a for a in arguments[1:] if not a.startswith("--") and a not in (str(out), str(count))]
        out.mkdir(parents=True, exist_ok=True)
        for index, sample in enumerate(samples[:count] if count else samples):
            camera_like(sample, out / f"camera-{index + 1}.jpg", seed=index + 1)
        zone_plate(out / "zoneplate.png")
    elif arguments[:1] == ["compare"] and len(arguments) >= 3 and len(arguments) % 2 == 1:
        compare(zip(arguments[1::2], arguments[2::2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
