#!/usr/bin/env python3
"""Makes photos as cameras and phones write them, and reads outputs back, with Pillow: the
independent decoder the camera-photo tests (Tests/ClusterCLITests/CameraPhotoTests.swift) check
PhotoCluster's outputs against. Run with the test tools' venv (scripts/install-test-tools).

    camera_photos.py make SOURCE DIR      writes the photos and upright.png (what they show) into DIR
    camera_photos.py inspect FILE [--against REFERENCE] [--resize W,H] [--crop X,Y,W,H] [--convert-from PROFILE]
        prints one JSON object: the stored size and mode, the EXIF orientation and tags, the ICC
        profile's SHA-256, the XMP, and the mean and largest RGB (and alpha) difference from
        REFERENCE (its pixels converted from PROFILE to sRGB first, resized by area averaging and
        cut to the rectangle, when given)
"""
import ctypes
import hashlib
import io
import json
import sys
from pathlib import Path

from PIL import Image, ImageChops, ImageCms, ImageStat

# EXIF orientation → the Pillow transpose that turns stored pixels upright, and its inverse
# (which makes the stored pixels of an upright photo).
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
STORED = {**UPRIGHT, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}

ARTIST, COPYRIGHT, GPS_IFD, ORIENTATION = 0x013B, 0x8298, 0x8825, 0x0112
XMP = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
       b'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="%d"/></rdf:RDF></x:xmpmeta>'
       b'<?xpacket end="w"?>')


def display_p3_profile():
    """A Display P3 profile (P3 primaries, D65, the sRGB curve), made with Little CMS."""
    lcms = ctypes.CDLL("liblcms2.so.2")

    class XYY(ctypes.Structure):
        _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]

    class Triple(ctypes.Structure):
        _fields_ = [("red", XYY), ("green", XYY), ("blue", XYY)]

    lcms.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
    lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
    lcms.cmsCreateRGBProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lcms.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lcms.cmsCloseProfile.argtypes = [ctypes.c_void_p]
    srgb_curve = (ctypes.c_double * 5)(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
    curve = lcms.cmsBuildParametricToneCurve(None, 4, srgb_curve)
    curves = (ctypes.c_void_p * 3)(curve, curve, curve)
    white = XYY(0.3127, 0.3290, 1.0)
    primaries = Triple(XYY(0.680, 0.320, 1.0), XYY(0.265, 0.690, 1.0), XYY(0.150, 0.060, 1.0))
    profile = lcms.cmsCreateRGBProfile(ctypes.byref(white), ctypes.byref(primaries), curves)
    size = ctypes.c_uint32(0)
    lcms.cmsSaveProfileToMem(profile, None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lcms.cmsSaveProfileToMem(profile, buffer, ctypes.byref(size))
    lcms.cmsCloseProfile(profile)
    return buffer.raw[: size.value]


def camera_exif(orientation):
    """EXIF as a phone writes it: orientation, artist, copyright, and a GPS position."""
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    exif[ARTIST] = "Ada Lovelace"
    exif[COPYRIGHT] = "(c) 2026 Ada Lovelace"
    exif[0x010F] = "PhoneMaker"  # Make
    exif[GPS_IFD] = {1: "N", 2: (51.0, 30.0, 26.0), 3: "W", 4: (0.0, 7.0, 39.0)}
    return exif


def make(source, out):
    out = Path(out)
    upright = Image.open(source).convert("RGB")
    upright.save(out / "upright.png")
    for orientation in range(1, 9):
        stored = upright.transpose(STORED[orientation]) if orientation in STORED else upright
        stored.save(out / f"o{orientation}.jpg", quality=95, exif=camera_exif(orientation), xmp=XMP % orientation)
    p3 = display_p3_profile()
    (out / "display-p3.icc").write_bytes(p3)
    upright.save(out / "p3.jpg", quality=95, icc_profile=p3, exif=camera_exif(1))
    stored = upright.transpose(STORED[6])
    stored.save(out / "o6-p3.png", icc_profile=p3, exif=camera_exif(6))
    # CMYK as print shops send it: converted with Ghostscript's CMYK profile, which it carries.
    cmyk_profile = Path("/usr/share/color/icc/ghostscript/default_cmyk.icc")
    if cmyk_profile.exists():
        cmyk = ImageCms.profileToProfile(upright, ImageCms.createProfile("sRGB"), str(cmyk_profile), outputMode="CMYK")
        cmyk.save(out / "cmyk.jpg", quality=95, icc_profile=cmyk_profile.read_bytes())
        (out / "cmyk.icc").write_bytes(cmyk_profile.read_bytes())
    upright.convert("L").save(out / "gray.jpg", quality=95)
    # WebP with alpha: an alpha ramp over the photo, stored on its side with its EXIF.
    # Never quite transparent: encoders may drop the colour of pixels whose alpha is 0.
    alpha = Image.linear_gradient("L").resize(upright.size).point(lambda v: 32 + v * 223 // 255)
    translucent = upright.copy()
    translucent.putalpha(alpha)
    translucent.save(out / "translucent.png")
    translucent.transpose(STORED[6]).save(out / "o6-alpha.webp", lossless=True, exact=True, exif=camera_exif(6))


def inspect(path, against=None, crop=None, convert_from=None, resize=None):
    image = Image.open(path)
    image.load()
    exif = image.getexif()
    report = {
        "format": image.format, "mode": image.mode, "width": image.width, "height": image.height,
        "orientation": exif.get(ORIENTATION), "exif_tags": sorted(exif.keys()),
        "artist": exif.get(ARTIST), "copyright": exif.get(COPYRIGHT),
        "icc_sha256": hashlib.sha256(image.info["icc_profile"]).hexdigest() if image.info.get("icc_profile") else None,
        "xmp": (image.info.get("xmp") or b"").decode("utf-8", "replace") if isinstance(image.info.get("xmp"), bytes) else image.info.get("xmp"),
        "has_alpha": image.mode in ("RGBA", "LA"),
    }
    if against:
        reference = Image.open(against)
        if convert_from:
            reference = ImageCms.profileToProfile(reference, ImageCms.ImageCmsProfile(io.BytesIO(Path(convert_from).read_bytes())),
                                                  ImageCms.createProfile("sRGB"), outputMode="RGB")
        if reference.mode == "RGBA":
            report["alpha_difference"] = alpha_difference(image, reference)
        reference = reference.convert("RGB")
        if resize:
            reference = reference.resize(tuple(int(v) for v in resize.split(",")), Image.Resampling.BOX)
        if crop:
            x, y, w, h = (int(v) for v in crop.split(","))
            reference = reference.crop((x, y, x + w, y + h))
        pixels = image.convert("RGB")
        if reference.size != pixels.size:
            report["difference"] = {"error": f"size {pixels.size} against {reference.size}"}
        else:
            difference = ImageChops.difference(pixels, reference)
            report["difference"] = {"mean": sum(ImageStat.Stat(difference).mean) / 3,
                                    "max": max(high for _, high in difference.getextrema())}
    print(json.dumps(report))


def alpha_difference(image, reference):
    """The largest difference between the alpha channels (255 when the output has none)."""
    if image.mode not in ("RGBA", "LA") or image.size != reference.size:
        return 255
    return ImageChops.difference(image.getchannel("A"), reference.getchannel("A")).getextrema()[1]


def main(arguments):
    if len(arguments) >= 3 and arguments[0] == "make":
        return make(arguments[1], arguments[2])
    if len(arguments) >= 2 and arguments[0] == "inspect":
        options = dict(zip(arguments[2::2], arguments[3::2]))
        return inspect(arguments[1], options.get("--against"), options.get("--crop"), options.get("--convert-from"), options.get("--resize"))
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
