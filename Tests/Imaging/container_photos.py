"""Photos in HEIC, AVIF, TIFF and GIF made by encoders independent of PhotoCluster's codecs, and
the checks of what PhotoCluster made of them.

    container_photos.py make SOURCE DIR   writes the files below into DIR
    container_photos.py psnr A B          prints {"psnr": dB, "size": [w, h]} (any two files Pillow,
                                          pillow-heif or avifdec read; AVIF through avifdec)
    container_photos.py p3check OUT HEIC  prints {"max": largest level difference} between OUT and
                                          the HEIC decoded by heif-convert and converted to sRGB by
                                          Pillow's Little CMS
    container_photos.py hostile DIR       writes the hostile files
    container_photos.py exif FILE         prints the file's EXIF as Pillow reads it: {"ifd0": {tag:
                                          value}, "exif": {…}, "gps": {…}} (tags as decimal strings)

Made files: source.png (the picture), heic.heic (heif-enc, x265), heif-av1.avif (heif-enc, aom),
avif.avif and avif10.avif (avifenc, 8 and 10 bits), tiff8.tif (Pillow, LZW strips), tiff16.tif
(16-bit RGB strips, big-endian, written here), tiled16.tif (tiffcp: 64x64 Deflate tiles of it),
gray16.tif (Pillow I;16), gif.gif (Pillow, 64 colours, a transparent corner), exif6.jpg (Pillow:
stored on its side, EXIF orientation 6), orient6.tif (Pillow: the same, TIFF Orientation 6), exif.tif (orient6.tif with Make, Model, Artist
and Copyright from Pillow, then an EXIF directory (DateTimeOriginal, BodySerialNumber) and a GPS
one added by exiftool), irot.heic (pillow-heif: the same, with an irot box),
p3.heic (heif-enc from a PNG with a Display P3 profile), nclx-p3.avif (avifenc: the same pixels,
an nclx box saying P3 instead of the profile), grid-source.png (the photo at its own 451x300),
grid.heic (a grid image as phones write them, put together here: a grid item, its ImageGrid in
idat, naming a 4x3 grid of hidden hvc1 items, 128x128 tiles of grid-source.png each encoded by
heif-enc, the last column and row overhanging the picture and cut off by the grid's 451x300),
grid-irot.heic (the same with an irot box, a quarter turn anticlockwise, on the grid item) and
grid-rot.png (grid-source.png turned so by Pillow).
"""
import io
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

from PIL import Image, ImageCms
import pillow_heif

sys.path.insert(0, os.path.dirname(__file__))
from camera_photos import display_p3_profile  # noqa: E402


def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def write_tiff16(image, path):
    """A baseline 16-bit RGB TIFF, big-endian, 16 rows a strip, uncompressed."""
    width, height = image.size
    pixels = image.tobytes()
    rows_per_strip = 16
    strips = []
    for top in range(0, height, rows_per_strip):
        rows = pixels[top * width * 3:min(height, top + rows_per_strip) * width * 3]
        strips.append(b"".join(struct.pack(">H", v * 257) for v in rows))
    header = 8
    entries = 11
    ifd_size = 2 + entries * 12 + 4
    bits_at = header + ifd_size
    offsets_at = bits_at + 6
    counts_at = offsets_at + 4 * len(strips)
    data_at = counts_at + 4 * len(strips)
    offsets, at = [], data_at
    for strip in strips:
        offsets.append(at)
        at += len(strip)

    def entry(tag, kind, count, value):
        return struct.pack(">HHI", tag, kind, count) + value

    def short(v):
        return struct.pack(">HH", v, 0)

    def long_(v):
        return struct.pack(">I", v)

    ifd = struct.pack(">H", entries) + b"".join([
        entry(256, 4, 1, long_(width)), entry(257, 4, 1, long_(height)),
        entry(258, 3, 3, long_(bits_at)), entry(259, 3, 1, short(1)), entry(262, 3, 1, short(2)),
        entry(273, 4, len(strips), long_(offsets_at)), entry(277, 3, 1, short(3)),
        entry(278, 4, 1, long_(rows_per_strip)), entry(279, 4, len(strips), long_(counts_at)),
        entry(284, 3, 1, short(1)), entry(339, 3, 1, short(1)),
    ]) + struct.pack(">I", 0)
    with open(path, "wb") as f:
        f.write(b"MM\x00\x2a" + struct.pack(">I", header) + ifd + struct.pack(">HHH", 16, 16, 16))
        f.write(b"".join(struct.pack(">I", o) for o in offsets))
        f.write(b"".join(struct.pack(">I", len(s)) for s in strips))
        for strip in strips:
            f.write(strip)


def box(kind, *parts):
    """An ISOBMFF box: 32-bit size, four-character type, payload."""
    payload = b"".join(parts)
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, *parts):
    return box(kind, struct.pack(">I", version << 24 | flags), *parts)


def boxes(data, start=0, end=None):
    """The boxes in data[start:end] as (type, payload start, payload end)."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        elif size == 0:
            size = end - start
        yield kind.decode("latin-1"), start + header, start + size
        start += size


def child(data, start, end, kind):
    return next((b, e) for k, b, e in boxes(data, start, end) if k == kind)


def heic_tile(path):
    """A one-image HEIC's hvcC property box (whole, header included) and its coded data, gathered
    from its iloc extents (heif-enc writes them into mdat)."""
    data = open(path, "rb").read()
    meta = child(data, 0, len(data), "meta")
    meta = (meta[0] + 4, meta[1])  # past the FullBox header
    pitm = data[slice(*child(data, *meta, "pitm"))]
    primary = int.from_bytes(pitm[4:6] if pitm[0] == 0 else pitm[4:8], "big")
    ipco = child(data, *child(data, *meta, "iprp"), "ipco")
    hvcc = [data[b - 8:e] for k, b, e in boxes(data, *ipco) if k == "hvcC"]
    assert len(hvcc) == 1, f"{path}: {len(hvcc)} hvcC boxes"
    iloc = data[slice(*child(data, *meta, "iloc"))]
    version = iloc[0]
    offset_size, length_size, base_size, index_size = iloc[4] >> 4, iloc[4] & 15, iloc[5] >> 4, iloc[5] & 15
    at = 6

    def number(size):
        nonlocal at
        value = int.from_bytes(iloc[at:at + size], "big")
        at += size
        return value

    for _ in range(number(2 if version < 2 else 4)):
        item = number(2 if version < 2 else 4)
        method = number(2) & 15 if version in (1, 2) else 0
        number(2)  # data_reference_index
        base = number(base_size)
        extents = []
        for _ in range(number(2)):
            if version in (1, 2):
                number(index_size)
            extents.append((base + number(offset_size), number(length_size)))
        if item == primary:
            assert method == 0, "tile data outside the file"
            return hvcc[0], b"".join(data[o:o + n] for o, n in extents)
    raise ValueError(f"{path}: no iloc entry for the primary item")


def write_grid(picture, tile, quality, path, rotation=None):
    """A HEIF grid image put together by hand (heif-enc 1.15 writes none): `picture` cut into
    tile x tile pieces, the overhang at the right and bottom filled by repeating the edge pixels,
    each piece encoded by heif-enc into its own file, its hvcC and coded data moved into hidden
    hvc1 items of a grid item whose ImageGrid (in idat) and ispe give the picture's size; with an
    irot property (quarter turns anticlockwise) on the grid item when `rotation` is given."""
    width, height = picture.size
    columns, rows = -(-width // tile), -(-height // tile)
    padded = Image.new("RGB", (columns * tile, rows * tile))
    padded.paste(picture, (0, 0))
    padded.paste(picture.crop((width - 1, 0, width, height)).resize((columns * tile - width, height)), (width, 0))
    padded.paste(padded.crop((0, height - 1, columns * tile, height)).resize((columns * tile, rows * tile - height)), (0, height))
    tiles = []
    with tempfile.TemporaryDirectory() as scratch:
        for row in range(rows):
            for column in range(columns):
                piece = os.path.join(scratch, f"{row}-{column}.png")
                padded.crop((column * tile, row * tile, (column + 1) * tile, (row + 1) * tile)).save(piece)
                run("heif-enc", "-q", str(quality), piece, "-o", piece + ".heic")
                tiles.append(heic_tile(piece + ".heic"))
    grid_id, tile_ids = 1, list(range(2, 2 + len(tiles)))
    # Properties, numbered from 1 in ipco order: each tile's hvcC (heif-enc writes no colr: the
    # colours are the codec's own, in each tile's VUI), the tiles' ispe, the grid's ispe, irot.
    ispe = lambda w, h: full_box("ispe", 0, 0, struct.pack(">II", w, h))  # noqa: E731
    properties = [hvcc for hvcc, _ in tiles] + [ispe(tile, tile), ispe(width, height)]
    tile_ispe, grid_ispe = len(tiles) + 1, len(tiles) + 2
    grid_properties = [(grid_ispe, False)]
    if rotation is not None:
        properties.append(box("irot", bytes([rotation & 3])))
        grid_properties.append((len(properties), True))

    def association(item, *indices):  # (property index, essential)
        return struct.pack(">HB", item, len(indices)) + bytes(index | (0x80 if essential else 0) for index, essential in indices)

    ipma = full_box("ipma", 0, 0, struct.pack(">I", 1 + len(tiles)), association(grid_id, *grid_properties),
                    *(association(item, (n + 1, True), (tile_ispe, False)) for n, item in enumerate(tile_ids)))
    image_grid = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, width, height)
    infe = lambda item, kind, flags: full_box("infe", 2, flags, struct.pack(">HH4s", item, 0, kind.encode()), b"\0")  # noqa: E731

    def meta(mdat_start):
        """The meta box; its size does not depend on mdat_start (iloc's fields are all 4 bytes)."""
        extents, at = [], mdat_start
        for item, (_, coded) in zip(tile_ids, tiles):
            extents.append(struct.pack(">HHHHII", item, 0, 0, 1, at, len(coded)))
            at += len(coded)
        iloc = full_box("iloc", 1, 0, struct.pack(">BBH", 0x44, 0x00, 1 + len(tiles)),
                        struct.pack(">HHHHII", grid_id, 1, 0, 1, 0, len(image_grid)), *extents)
        return full_box(
            "meta", 0, 0,
            full_box("hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict"), b"\0"),
            full_box("pitm", 0, 0, struct.pack(">H", grid_id)),
            full_box("iinf", 0, 0, struct.pack(">H", 1 + len(tiles)), infe(grid_id, "grid", 0), *(infe(item, "hvc1", 1) for item in tile_ids)),
            full_box("iref", 0, 0, box("dimg", struct.pack(">HH", grid_id, len(tiles)), *(struct.pack(">H", item) for item in tile_ids))),
            box("iprp", box("ipco", *properties), ipma),
            box("idat", image_grid),
            iloc)

    ftyp = box("ftyp", b"heic", struct.pack(">I", 0), b"mif1heic")
    mdat_start = len(ftyp) + len(meta(0)) + 8
    with open(path, "wb") as f:
        f.write(ftyp + meta(mdat_start) + box("mdat", *(coded for _, coded in tiles)))


def make(source, out):
    photo = Image.open(source).convert("RGB")
    picture = photo.resize((384, 256), Image.LANCZOS)
    path = lambda name: os.path.join(out, name)  # noqa: E731
    picture.save(path("source.png"))
    run("heif-enc", "-q", "92", path("source.png"), "-o", path("heic.heic"))
    run("heif-enc", "-A", "-q", "92", path("source.png"), "-o", path("heif-av1.avif"))
    run("avifenc", "-s", "8", "--min", "0", "--max", "12", path("source.png"), path("avif.avif"))
    run("avifenc", "-s", "8", "-d", "10", "--min", "0", "--max", "12", path("source.png"), path("avif10.avif"))
    picture.save(path("tiff8.tif"), compression="tiff_lzw")
    write_tiff16(picture, path("tiff16.tif"))
    run("tiffcp", "-t", "-w", "64", "-l", "64", "-c", "zip", path("tiff16.tif"), path("tiled16.tif"))
    picture.convert("L").convert("I;16").point(lambda v: v * 257).save(path("gray16.tif"))
    gif = picture.quantize(64)
    gif.paste(63, (0, 0, 24, 24))
    gif.save(path("gif.gif"), transparency=63)
    exif = Image.Exif()
    exif[0x0112] = 6
    sideways = picture.transpose(Image.Transpose.ROTATE_90)
    sideways.save(path("exif6.jpg"), quality=95, exif=exif.tobytes())
    sideways.save(path("orient6.tif"), tiffinfo={274: 6})
    # Pillow writes no EXIF or GPS directory into a TIFF: exiftool adds them.
    sideways.save(path("exif.tif"), tiffinfo={274: 6, 271: "Camera Co", 272: "Model X", 315: "Jane Doe", 33432: "(c) Jane Doe"})
    run("exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2024:05:06 07:08:09", "-SerialNumber=SN123",
        "-GPSLatitude=52.37", "-GPSLatitudeRef=N", path("exif.tif"))
    pillow_heif.register_heif_opener()
    Image.open(path("exif6.jpg")).save(path("irot.heic"), quality=95, exif=exif.tobytes())
    p3 = display_p3_profile()
    picture.save(path("p3.png"), icc_profile=p3)
    run("heif-enc", "-q", "95", path("p3.png"), "-o", path("p3.heic"))
    # The same P3 pixels described by an nclx box (primaries 12, sRGB transfer) instead of a profile.
    run("avifenc", "-s", "8", "--min", "0", "--max", "12", "--cicp", "12/13/6", "--ignore-icc", path("p3.png"), path("nclx-p3.avif"))
    # Grids as phones write them, at the photo's own size so that the last column and row of
    # tiles overhang it.
    photo.save(path("grid-source.png"))
    photo.transpose(Image.Transpose.ROTATE_90).save(path("grid-rot.png"))
    write_grid(photo, 128, 92, path("grid.heic"))
    write_grid(photo, 128, 92, path("grid-irot.heic"), rotation=1)


def read(path):
    if path.endswith(".avif"):
        png = path + ".avifdec.png"
        run("avifdec", path, png)
        return Image.open(png).convert("RGB")
    if path.endswith(".heic"):
        pillow_heif.register_heif_opener()
    return Image.open(path).convert("RGB")


def psnr(a, b):
    first, second = read(a), read(b)
    if first.size != second.size:
        return {"psnr": 0, "size": list(first.size), "other": list(second.size)}
    x, y = first.tobytes(), second.tobytes()
    error = sum((p - q) ** 2 for p, q in zip(x, y)) / len(x)
    return {"psnr": 99.0 if error == 0 else 10 * math.log10(255 * 255 / error), "size": list(first.size)}


def p3check(output, heic):
    png = heic + ".decoded.png"
    run("heif-convert", heic, png)
    decoded = Image.open(png).convert("RGB")
    p3 = ImageCms.ImageCmsProfile(io.BytesIO(display_p3_profile()))
    reference = ImageCms.profileToProfile(decoded, p3, ImageCms.createProfile("sRGB"), renderingIntent=0)
    ours = Image.open(output).convert("RGB")
    if ours.size != reference.size:
        return {"max": 255, "size": list(ours.size)}
    return {"max": max(abs(p - q) for p, q in zip(ours.tobytes(), reference.tobytes())),
            "profile": "icc_profile" in Image.open(output).info}


def exif_report(path):
    exif = Image.open(path).getexif()
    readable = lambda d: {str(k): (v.decode("latin-1") if isinstance(v, bytes) else v if isinstance(v, (int, str)) else  # noqa: E731
                                   [float(x) for x in v] if isinstance(v, tuple) else str(v)) for k, v in d.items()}
    return {"ifd0": readable(exif), "exif": readable(exif.get_ifd(0x8769)), "gps": readable(exif.get_ifd(0x8825))}


def hostile(out):
    path = lambda name: os.path.join(out, name)  # noqa: E731
    # A HEIC whose ispe claims 40000x40000 (the picture inside is small).
    small = Image.new("RGB", (64, 64), (200, 30, 30))
    small.save(path("small.png"))
    run("heif-enc", "-q", "50", path("small.png"), "-o", path("small.heic"))
    data = bytearray(open(path("small.heic"), "rb").read())
    at = data.find(b"ispe")
    assert at > 0, "no ispe box"
    data[at + 8:at + 16] = struct.pack(">II", 40000, 40000)
    open(path("huge.heic"), "wb").write(data)
    # Only the boxes that chain derived images: the primary item 1 made from 2, 2 from 3, ... ten
    # deep, where real files nest two deep (an iden of a grid of tiles).
    chain = [box("dimg", struct.pack(">HHH", item, 1, item + 1)) for item in range(1, 11)]
    meta = full_box("meta", 0, 0, full_box("hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict"), b"\0"),
                    full_box("pitm", 0, 0, struct.pack(">H", 1)), full_box("iref", 0, 0, *chain))
    open(path("deep.heic"), "wb").write(box("ftyp", b"heic", struct.pack(">I", 0), b"mif1heic") + meta)
    # An AVIF cut in half.
    run("avifenc", "-s", "9", path("small.png"), path("whole.avif"))
    whole = open(path("whole.avif"), "rb").read()
    open(path("truncated.avif"), "wb").write(whole[:len(whole) * 2 // 3])
    # A TIFF bomb: 9000x9000 RGB of zeros in one Deflate strip: a few hundred kB claiming 243 MB
    # of samples and 324 MB of pixels.
    Image.new("RGB", (9000, 9000)).save(path("bomb.tif"), compression="tiff_adobe_deflate",
                                         tiffinfo={278: 9000})


def main(arguments):
    command = arguments[0]
    if command == "make":
        make(arguments[1], arguments[2])
    elif command == "psnr":
        print(json.dumps(psnr(arguments[1], arguments[2])))
    elif command == "p3check":
        print(json.dumps(p3check(arguments[1], arguments[2])))
    elif command == "hostile":
        hostile(arguments[1])
    elif command == "exif":
        print(json.dumps(exif_report(arguments[1])))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
