"""Small helpers about numbers and the machine: medians, load, file systems, the CPU."""
import glob
import os
import shlex
import statistics


def log(text):
    print(text, flush=True)


def median(values):
    return statistics.median(values) if values else float("nan")


def middle_half(values):
    """The first and third quartiles: the ends of the middle half."""
    first, _, third = statistics.quantiles(values, n=4, method="inclusive")
    return first, third


def shlex_quote(text):
    return shlex.quote(text)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return 0.0


def file_system(path):
    """The mount holding `path`: (mount point, device, type), from /proc/mounts."""
    path, best = os.path.realpath(path), ("/", "?", "?")
    try:
        with open("/proc/mounts") as f:
            for line in f:
                device, point, kind = line.split()[:3]
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best[0]):
                    best = (point, device, kind)
    except OSError:
        pass
    return best


def scratch_note(path):
    """Where the photos and every tool's outputs were written. Output files cost more on some file
    systems than on others; on ext4 without a journal, creating a file soon after many were deleted
    costs far more (the allocator reads each inode freed in the last seconds before it skips it):
    with the samples' small photos on 2 cores, a fifth to a quarter of a photo's time in every tool
    that writes files, and varying with how many files were just deleted."""
    point, device, kind = file_system(path)
    note = f"outputs written under {path}, on {kind} ({device} at {point})"
    # A journaled ext4 has /proc/fs/jbd2/DEVICE-INODE (the journal's inode, usually 8).
    if kind == "ext4" and not glob.glob(f"/proc/fs/jbd2/{os.path.basename(device)}-*"):
        note += (": ext4 without a journal makes creating files slow after many were deleted, and by an amount that varies "
                 "from run to run; `bench/run --scratch /dev/shm` leaves the disk out of the figures")
    return note


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"
