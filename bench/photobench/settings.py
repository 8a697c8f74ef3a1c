"""What the suite measures: the works, the tools and their labels."""

QUALITY = 85
# PhotoCluster's sepia at intensity 0.8 as one matrix, 0.2 * I + 0.8 * M (for vips and Pillow).
SEPIA_M = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
SEPIA_BLEND = [[(0.2 if c == r else 0) + 0.8 * SEPIA_M[r][c] for c in range(3)] for r in range(3)]

WORKS = {
    "sepia-jpeg": {"label": "sepia → JPEG q85", "filter": "sepia", "format": "jpeg"},
    "blur-jpeg": {"label": "blur σ2 → JPEG q85", "filter": "blur:sigma=2", "format": "jpeg"},
    "sepia-png": {"label": "sepia → PNG", "filter": "sepia", "format": "png"},
}

# Tools that time their own runs on photos held in memory (see Bench.in_process).
IN_PROCESS = ("floor", "floor-sepia", "pipeline", "pipeline-fast", "pipeline-copy", "pipeline-nocopy", "pipeline-e2e", "pipeline-engine")

TOOLS = [
    # key, label
    ("floor", "floor: libjpeg-turbo decode + encode (C)"),
    ("floor-sepia", "C reference: floor + plain C sepia"),
    ("pipeline", "PhotoCluster in-process pipeline (point filters inside the encode, as the worker)"),
    ("pipeline-fast", "  same, with --fast-dct (libjpeg-turbo's fast DCT)"),
    ("pipeline-copy", "  same, the filter as a stage of its own on a one-pass copy"),
    ("pipeline-nocopy", "  same, the filter in place on the decoded image"),
    ("pipeline-e2e", "  same, end to end: each photo downloaded over loopback HTTP, each output written durably (a job minus the cluster)"),
    ("pipeline-engine", "  same end to end, through the worker's own engine (its stage operations and queues; a worker minus ZeroMQ and the coordinator)"),
    ("embedded", "PhotoCluster `cluster submit` embedded"),
    ("tcp", "PhotoCluster coordinator + worker over TCP"),
    ("pillow", "Pillow (in-process)"),
    ("vips", "libvips (`vips` command)"),
    ("vips-fast", "libvips, PNG compression=1"),
    ("magick", "ImageMagick (`convert`)"),
]

SHORT = {
    "floor": "floor (libjpeg-turbo)", "floor-sepia": "C: floor + plain sepia", "pipeline": "PhotoCluster in-process",
    "pipeline-fast": "  in-process, --fast-dct", "pipeline-copy": "  in-process, filter stage", "pipeline-nocopy": "  in-process, in place",
    "pipeline-e2e": "  in-process, end to end", "pipeline-engine": "  in-process, worker engine", "embedded": "PhotoCluster embedded",
    "tcp": "PhotoCluster over TCP", "pillow": "Pillow", "vips": "libvips", "vips-fast": "libvips compression=1",
    "magick": "ImageMagick",
}
