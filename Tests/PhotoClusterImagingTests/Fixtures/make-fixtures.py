#!/usr/bin/env python3
"""Regenerates the fixtures in this folder (run once; the tests only read the outputs).

PNGs are written by hand (zlib + struct) so every colour type and bit depth is exactly
what the tests expect; the JPEGs need Pillow (`pip install pillow`). clock.jpg is a copy of
a real 400x300 photo, passed as the first argument.

    python3 make-fixtures.py /path/to/clock.jpg
"""
import io
import shutil
import struct
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent

# 4x3 pixels, row by row; the tests hold the same tables.
RGB = [
    (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255),
    (0, 0, 0), (128, 64, 32), (10, 20, 30), (200, 150, 100),
    (1, 2, 3), (254, 253, 252), (0, 128, 255), (77, 88, 99),
]
GRAY = [0, 17, 34, 51, 68, 85, 102, 119, 136, 153, 255, 128]
ALPHA = [255, 0, 128, 1, 254, 64, 32, 200, 100, 255, 0, 50]
BITS = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]  # 1-bit gray
W, H = 4, 3


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png(color_type, depth, rows, extra=b""):
    """rows: list of per-row byte strings, already packed for the bit depth."""
    ihdr = struct.pack(">IIBBBBB", W, H, depth, color_type, 0, 0, 0)
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def rows_of(samples, fmt):
    """Packs a flat list of per-pixel sample tuples into rows with struct format `fmt`."""
    return [b"".join(struct.pack(fmt, *samples[y * W + x]) for x in range(W)) for y in range(H)]


def pack_bits(values, depth):
    rows = []
    for y in range(H):
        acc, nbits, out = 0, 0, bytearray()
        for v in values[y * W:(y + 1) * W]:
            acc = (acc << depth) | v
            nbits += depth
            if nbits == 8:
                out.append(acc); acc, nbits = 0, 0
        if nbits:
            out.append(acc << (8 - nbits))
        rows.append(bytes(out))
    return rows


def write_pngs():
    files = {
        "gray1.png": png(0, 1, pack_bits(BITS, 1)),
        "gray8.png": png(0, 8, rows_of([(g,) for g in GRAY], ">B")),
        "gray16.png": png(0, 16, rows_of([(g * 257,) for g in GRAY], ">H")),
        "gray-alpha8.png": png(4, 8, rows_of(list(zip(GRAY, ALPHA)), ">BB")),
        "rgb8.png": png(2, 8, rows_of(RGB, ">BBB")),
        "rgb16.png": png(2, 16, rows_of([tuple(c * 257 for c in p) for p in RGB], ">HHH")),
        "rgba8.png": png(6, 8, rows_of([p + (a,) for p, a in zip(RGB, ALPHA)], ">BBBB")),
        "rgba16.png": png(6, 16, rows_of([tuple(c * 257 for c in p + (a,)) for p, a in zip(RGB, ALPHA)], ">HHHH")),
        # Palette index i is pixel i's colour; 4-bit indices with tRNS exercise packing too.
        "palette8.png": png(3, 8, [bytes(range(y * W, y * W + W)) for y in range(H)],
                            chunk(b"PLTE", b"".join(bytes(p) for p in RGB))),
        "palette4-trns.png": png(3, 4, pack_bits(list(range(W * H)), 4),
                                 chunk(b"PLTE", b"".join(bytes(p) for p in RGB)) + chunk(b"tRNS", bytes(ALPHA))),
    }
    for name, data in files.items():
        (HERE / name).write_bytes(data)


def strip_app14(jpeg):
    """Removes the Adobe APP14 segment, leaving a plain (non-inverted) CMYK JPEG."""
    i = 2
    while jpeg[i] == 0xFF and jpeg[i + 1] != 0xDA:
        length = struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        if jpeg[i + 1] == 0xEE:
            return jpeg[:i] + jpeg[i + 2 + length:]
        i += 2 + length
    raise ValueError("no APP14 segment")


def write_jpegs(clock):
    from PIL import Image

    def save(image, **options):
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", **options)
        return buffer.getvalue()

    gray = Image.new("L", (16, 16), 64)
    gray.paste(192, (8, 0, 16, 16))
    (HERE / "gray.jpg").write_bytes(save(gray, quality=95))

    rgb = Image.new("RGB", (32, 16), (200, 30, 40))
    rgb.paste((20, 100, 220), (16, 0, 32, 16))
    (HERE / "rgb.jpg").write_bytes(save(rgb, quality=95))

    # CMYK (30, 120, 200, 40) is RGB (190, 114, 46). Pillow writes Adobe (inverted) CMYK, so
    # saving the inverted inks stores the plain ones, which stay once the marker is removed.
    cmyk = (30, 120, 200, 40)
    (HERE / "cmyk-adobe.jpg").write_bytes(save(Image.new("CMYK", (16, 16), cmyk), quality=95))
    inverted = Image.new("CMYK", (16, 16), tuple(255 - v for v in cmyk))
    (HERE / "cmyk-plain.jpg").write_bytes(strip_app14(save(inverted, quality=95)))

    shutil.copyfile(clock, HERE / "clock.jpg")
    small = Image.open(clock).convert("RGB").resize((100, 75))
    (HERE / "progressive.jpg").write_bytes(save(small, quality=80, progressive=True))


def write_profile():
    """srgb.icc: Little CMS's sRGB profile, as Pillow makes it."""
    from PIL import ImageCms
    (HERE / "srgb.icc").write_bytes(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())


if __name__ == "__main__":
    write_pngs()
    write_profile()
    write_jpegs(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/photos/clock.jpg")
