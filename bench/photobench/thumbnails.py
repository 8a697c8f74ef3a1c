"""The thumbnail benchmark's measuring: the photo sets (camera-like photos of 12 and 24 MP made
from the samples: grain, quality 90), each tool run on one core (taskset) and on all cores, and
the quality of each tool's thumbnails (PSNR per photo against Pillow's exact Lanczos-3 of the
whole decoded photo, on lossless outputs). bench/thumbnails.py reads the options;
thumbnail_report.py writes the results."""
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from photobench import thumbnail_report
from photobench.machine import loadavg, log

QUALITY = 85
WORKS = {"thumb-256": 256, "thumb-512": 512}
SETS = {"12mp": (4032, 3024), "24mp": (6000, 4000)}
TOOLS = [
    ("embedded", "PhotoCluster `cluster submit` (whole command, downloads included)"),
    ("pyvips", "pyvips `thumbnail` in-process"),
    ("decode", "the floor: Pillow's libjpeg-turbo decode alone at PhotoCluster's DCT scale"),
    ("vips-decode", "libvips' `jpegload` alone at the same DCT scale"),
    ("worker-decode", "the worker's own libjpeg-turbo (the system's) decoding alone at the same DCT scale, in C (bench/floor.c)"),
    ("vips", "`vips thumbnail` command"),
    ("pillow", "Pillow `draft` + `thumbnail` in-process"),
    ("magick", "ImageMagick `-thumbnail`"),
]


class Thumbnails:
    def __init__(self, args):
        self.args = args
        self.root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.tmp = tempfile.mkdtemp(prefix="photocluster-thumbs-", dir=args.scratch or None)
        self.cores = os.cpu_count() or 1
        self.results = []
        self.notes = []
        self.server = None

    # ---------- photos ----------

    def make_sets(self):
        """The first N JPEG samples made camera-like at 12 and 24 MP (Tests/Imaging/resample_quality.py:
        upscaled, film-like grain, quality 90, about 2 bits per pixel)."""
        sys.path.insert(0, os.path.join(self.root, "Tests", "Imaging"))
        from resample_quality import camera_like
        photos = os.path.join(self.root, "samples", "photos")
        names = sorted(f for f in os.listdir(photos) if f.endswith(".jpg"))[: self.args.photos]
        self.serve = os.path.join(self.tmp, "serve")
        os.makedirs(self.serve)
        self.sets = {}
        for key, size in SETS.items():
            if self.args.sets and key not in self.args.sets.split(","):
                continue
            files = []
            for index, name in enumerate(names):
                target = os.path.join(self.serve, f"{key}-{name}")
                camera_like(os.path.join(photos, name), target, seed=index + 1, size=size)
                files.append(target)
            self.sets[key] = files
            bits = sum(os.path.getsize(f) * 8 for f in files) / (self.megapixels(files) * 1e6)
            log(f"  set {key}: {len(files)} photos, {self.megapixels(files):.1f} MP, {bits:.2f} bits per pixel")

    def megapixels(self, files):
        from PIL import Image
        return sum(Image.open(f).size[0] * Image.open(f).size[1] for f in files) / 1e6

    def start_server(self):
        self.server = subprocess.Popen([self.args.pipeline, "serve", self.serve], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.server.stdout.readline().strip()

    # ---------- measuring ----------

    def pin(self, cores):
        return ["taskset", "-c", "0"] if cores == 1 else []

    def timed(self, command, stdin=None):
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:4])}… exited {done.returncode}: {done.stderr.strip()[-300:]}")
        return wall, done.stdout

    def record(self, work, set_key, tool, cores, seconds, photos, megapixels):
        wall = statistics.median(seconds)
        entry = {"work": work, "set": set_key, "tool": tool, "cores": cores, "runs": len(seconds), "seconds": seconds,
                 "photos": photos, "megapixels": megapixels, "photos_per_s": photos / wall,
                 "mp_per_s_per_core": megapixels / wall / cores}
        self.results.append(entry)
        log(f"    {tool:9} {cores} core{'s' if cores > 1 else ' '}  {entry['photos_per_s']:7.1f} photos/s  "
            f"{entry['mp_per_s_per_core']:7.1f} MP/s/core  ({len(seconds)} runs)")

    def embedded(self, work, set_key, files, cores, round_):
        """A job holding the set enough times for 48 photos, each copy with URLs of its own."""
        size, copies = WORKS[work], max(1, math.ceil(48 / len(files)))
        seconds = []
        for run in [round_]:
            entries = [{"name": f"{c}-{os.path.basename(p)}", "url": f"{self.base_url}/{os.path.basename(p)}?run={work}{set_key}{cores}{run}-{c}"}
                       for c in range(copies) for p in files]
            manifest = os.path.join(self.tmp, "manifest.json")
            with open(manifest, "w") as f:
                json.dump(entries, f)
            out = os.path.join(self.tmp, "out-embedded")
            shutil.rmtree(out, ignore_errors=True)
            wall, stdout = self.timed(self.pin(cores) + [self.args.cluster, "submit", manifest, "--filter", f"thumbnail:width={size},height={size}",
                                                         "--format", "jpeg", "--quality", str(QUALITY), "--out", out, "--json", "--workers", str(cores)])
            report = json.loads(stdout)
            if report["succeeded"] != len(entries):
                raise RuntimeError(f"cluster submit: {report['failed']}")
            seconds.append(wall)
        return seconds, len(files) * copies, self.megapixels(files) * copies

    def in_process(self, work, set_key, files, tool, cores, round_):
        command = self.pin(cores) + [sys.executable, os.path.join(self.root, "bench", "thumbnail_inprocess.py"), "--library", tool,
                                     "--size", str(WORKS[work]), "--quality", str(QUALITY), "--processes", str(cores),
                                     "--runs", "1"] + files * max(1, math.ceil(16 / len(files)))
        _, stdout = self.timed(command)
        result = json.loads(stdout.strip().splitlines()[-1])
        return result["seconds"], result["photos"], result["megapixels"]

    def worker_decode(self, work, set_key, files, cores):
        """bench/floor.c: the libjpeg-turbo the worker links, decoding from memory into RGBA at the
        DCT scale the worker picks, nothing else. The whole command minus this is what PhotoCluster
        spends beside its decoder."""
        from PIL import Image
        sys.path.insert(0, os.path.join(self.root, "bench"))
        from thumbnail_inprocess import photocluster_dct_scale
        width, height = Image.open(files[0]).size
        scale = photocluster_dct_scale(width, height, WORKS[work])
        photos = files * max(1, math.ceil(16 / len(files)))
        _, stdout = self.timed(self.pin(cores) + [self.args.floor, "--threads", str(cores), "--runs", "1", "--out", "none",
                                                  "--scale", str(scale), "--rgba"] + photos)
        result = json.loads(stdout.strip().splitlines()[-1])
        return result["seconds"], len(photos), self.megapixels(files) * len(photos) / len(files)

    def per_photo(self, work, set_key, files, tool, cores, round_):
        """One process per photo, `cores` at a time (xargs -P), as scripts use the commands."""
        size, out = WORKS[work], os.path.join(self.tmp, "out-cmd")
        lines = []
        for path in files * max(1, math.ceil(16 / len(files))):
            target = os.path.join(out, f"{len(lines)}.jpg")
            if tool == "vips":
                command = [self.args.vips, "thumbnail", path, f"{target}[Q={QUALITY}]", str(size), "--height", str(size)]
            else:
                command = [self.args.magick, path, "-thumbnail", f"{size}x{size}", "-quality", str(QUALITY), target]
            lines.append(" ".join(shlex.quote(a) for a in command))
        listing = os.path.join(self.tmp, "commands")
        with open(listing, "w") as f:
            f.write("\0".join(lines) + "\0")
        seconds = []
        for _ in [round_]:
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            with open(listing) as stdin:
                wall, _ = self.timed(self.pin(cores) + ["xargs", "-0", "-P", str(cores), "-n", "1", "sh", "-c"], stdin=stdin)
            seconds.append(wall)
        return seconds, len(lines), self.megapixels(files) * len(lines) / len(files)

    def measure(self, work, set_key, files, tool, cores, round_):
        """One run of a tool: (seconds, photos, megapixels), or None when it failed or is missing."""
        try:
            if tool == "embedded":
                return self.embedded(work, set_key, files, cores, round_)
            if tool == "worker-decode":
                if not self.args.floor:
                    raise RuntimeError("needs --floor (bench/floor.c built; bench/run passes it)")
                return self.worker_decode(work, set_key, files, cores)
            if tool in ("pyvips", "pillow", "decode", "vips-decode"):
                return self.in_process(work, set_key, files, tool, cores, round_)
            if tool == "vips" and self.args.vips or tool == "magick" and self.args.magick:
                return self.per_photo(work, set_key, files, tool, cores, round_)
        except Exception as error:
            self.notes.append(f"{tool} on {set_key} {work}, {cores} cores: {error}")
            log(f"    {tool:9} failed: {error}")
        return None

    def row(self, work, set_key, files, tools, cores):
        """The tools take turns, one run each per round, so a noisy minute on a shared machine
        costs each of them a run instead of one of them all its runs."""
        gathered = {}
        for round_ in range(self.args.runs):
            for tool in tools:
                if gathered.get(tool, ()) is None:
                    continue
                run = self.measure(work, set_key, files, tool, cores, round_)
                if run is None:
                    gathered[tool] = None
                    continue
                seconds, photos, megapixels = run
                gathered.setdefault(tool, ([], photos, megapixels))[0].extend(seconds)
        for tool in tools:
            if gathered.get(tool):
                seconds, photos, megapixels = gathered[tool]
                self.record(work, set_key, tool, cores, seconds, photos, megapixels)

    def quality(self, work, set_key, files):
        """PSNR per photo of each tool's thumbnail against the exact reference, written losslessly
        (PNG), so the JPEG encode at QUALITY is left out of the figure."""
        sys.path.insert(0, os.path.join(self.root, "Tests", "Imaging"))
        import numpy as np
        from PIL import Image
        from resample_quality import psnr
        size = WORKS[work]
        out = os.path.join(self.tmp, "out-quality")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        entries = [{"name": os.path.basename(p)[:-4], "url": f"{self.base_url}/{os.path.basename(p)}?quality={work}"} for p in files]
        manifest = os.path.join(self.tmp, "manifest-quality.json")
        with open(manifest, "w") as f:
            json.dump(entries, f)
        self.timed([self.args.cluster, "submit", manifest, "--filter", f"thumbnail:width={size},height={size}", "--format", "png",
                    "--out", out, "--json", "--workers", "1"])
        made = {"embedded": lambda p: Image.open(os.path.join(out, os.path.basename(p)[:-4] + ".png"))}
        try:
            import pyvips
            made["pyvips"] = lambda p: Image.fromarray(pyvips.Image.thumbnail(p, size, height=size).numpy())
        except ImportError:
            self.notes.append("no pyvips quality figures: pyvips is not installed")

        def pillow(p):
            image = Image.open(p)
            image.draft("RGB", (size, size))
            image = image.convert("RGB")
            image.thumbnail((size, size))
            return image
        made["pillow"] = pillow
        for path in files:
            whole = Image.open(path).convert("RGB")
            for tool, make in made.items():
                try:
                    output = make(path).convert("RGB")
                except Exception as error:
                    self.notes.append(f"{tool} quality on {os.path.basename(path)}: {error}")
                    continue
                reference = whole.resize(output.size, Image.LANCZOS, reducing_gap=None)
                value = psnr(np.asarray(output, dtype=np.float64), np.asarray(reference, dtype=np.float64))
                self.psnr.append({"work": work, "set": set_key, "tool": tool, "photo": os.path.basename(path), "psnr": round(value, 2)})
                log(f"    quality {tool:9} {os.path.basename(path):24} PSNR {value:5.2f} dB")

    def run(self):
        self.psnr = []
        self.load_before = loadavg()
        started = time.time()
        log(f"PhotoCluster thumbnail benchmark: {self.cores} cores, load average {self.load_before:.2f}")
        self.make_sets()
        self.start_server()
        tools = [t for t, _ in TOOLS if not self.args.tools or t in self.args.tools.split(",")]
        works = [w for w in WORKS if not self.args.works or w in self.args.works.split(",")]
        try:
            for set_key, files in self.sets.items():
                for work in works:
                    log(f"• {set_key} → {WORKS[work]} px  [{time.time() - started:.0f} s]")
                    for cores in [self.args.cores] if self.args.cores else sorted({1, self.cores}):
                        self.row(work, set_key, files, tools, cores)
                    self.quality(work, set_key, files)
        finally:
            if self.server:
                self.server.kill()
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.elapsed = time.time() - started
        self.load_after = loadavg()
        thumbnail_report.write(self, os.path.join(self.root, "bench", "results"))
