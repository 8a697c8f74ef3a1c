"""JPEG XL files made by cjxl (Debian's libjxl-tools), independent of PhotoCluster's codecs.

    jxl_photos.py make SOURCE DIR   writes the files below into DIR

Made files: source.png (the picture, 384x256, Pillow), lossless.jxl (cjxl -d 0: a bare
codestream), lossy.jxl (cjxl -d 0.5 in the ISO-BMFF container), sixteen.png and sixteen.jxl (a
16-bit RGB PNG written here, each sample the picture's times 257 plus noise in the low byte,
and cjxl -d 0 of it), exif6.jpg and oriented.jxl (Pillow: stored on its side with EXIF
orientation 6; cjxl's lossless JPEG transcoding, which puts orientation 6 in the codestream's
header; its EXIF box keeps the tag), meta.jpg and meta.jxl (Pillow: EXIF Make and Model and an
XMP packet with a dc:title; cjxl's lossless transcoding, which Brotli-compresses both into `brob`
boxes), animation.jxl (cjxl -d 0 of a Pillow GIF of two frames, red then blue), p3.png (the
picture carrying a Display P3 profile made with Little CMS) and p3.jxl (cjxl -d 0.5 of it),
gray.png and gray.jxl (the picture in gray, and cjxl -d 0 of it).
"""
import os
import struct
import subprocess
import sys
import zlib

from PIL import Image

sys.path.insert(0, os.path.dirname(__file__))
from camera_photos import display_p3_profile  # noqa: E402


XMP = ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""'
       ' xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">'
       'A cat in JPEG XL</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>'
       '<?xpacket end="w"?>')


def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def write_png16(image, path):
    """An RGB PNG of 16 bits a sample: v * 257, the low byte moved by up to ±96 (it must be scaled, not cut)."""
    width, height = image.size
    pixels = image.tobytes()
    rows = []
    for y in range(height):
        row = bytearray(b"\0")  # filter: none
        for i in range(width * 3):
            value = pixels[y * width * 3 + i] * 257 + ((y * 31 + i * 17) % 193) - 96
            row += struct.pack(">H", min(65535, max(0, value)))
        rows.append(bytes(row))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n")
        file.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0)))
        file.write(chunk(b"IDAT", zlib.compress(b"".join(rows))))
        file.write(chunk(b"IEND", b""))


def make(source, out):
    path = lambda name: os.path.join(out, name)  # noqa: E731
    picture = Image.open(source).convert("RGB").resize((384, 256), Image.LANCZOS)
    picture.save(path("source.png"))
    run("cjxl", "-d", "0", "--container=0", path("source.png"), path("lossless.jxl"))
    run("cjxl", "-d", "0.5", "--container=1", path("source.png"), path("lossy.jxl"))
    write_png16(picture, path("sixteen.png"))
    run("cjxl", "-d", "0", path("sixteen.png"), path("sixteen.jxl"))
    exif = Image.Exif()
    exif[0x0112] = 6
    picture.transpose(Image.Transpose.ROTATE_90).save(path("exif6.jpg"), quality=95, exif=exif.tobytes())
    run("cjxl", "--lossless_jpeg=1", path("exif6.jpg"), path("oriented.jxl"))
    meta = Image.Exif()
    meta[0x010F], meta[0x0110] = "PhotoCluster Test Camera", "Model JXL-1"
    picture.save(path("meta.jpg"), quality=95, exif=meta.tobytes(), xmp=XMP.encode())
    run("cjxl", "--lossless_jpeg=1", path("meta.jpg"), path("meta.jxl"))
    red, blue = Image.new("RGB", (64, 48), (255, 0, 0)), Image.new("RGB", (64, 48), (0, 0, 255))
    red.save(path("animation.gif"), save_all=True, append_images=[blue], duration=100, loop=0)
    run("cjxl", "-d", "0", path("animation.gif"), path("animation.jxl"))
    picture.save(path("p3.png"), icc_profile=display_p3_profile())
    run("cjxl", "-d", "0.5", path("p3.png"), path("p3.jxl"))
    picture.convert("L").save(path("gray.png"))
    run("cjxl", "-d", "0", path("gray.png"), path("gray.jxl"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
