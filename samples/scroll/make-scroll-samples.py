#!/usr/bin/env python3
"""Writes the 500-photo manifest and the two scroll traces of samples/scroll/.

The manifest cycles through the bundled sample photos; a query string makes every URL distinct
(the demo server ignores it), so no two entries coalesce into one download.
Trace lines: time_ms visible_start visible_end scrolling(0|1).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = sorted(f for f in os.listdir(os.path.join(HERE, "..", "photos")) if f.endswith((".jpg", ".png")))
COUNT, ROWS = 500, 10

manifest = [
    {"name": f"{i:03d}-{os.path.splitext(PHOTOS[i % len(PHOTOS)])[0]}",
     "url": f"http://127.0.0.1:8765/{PHOTOS[i % len(PHOTOS)]}?n={i}"}
    for i in range(COUNT)
]
with open(os.path.join(HERE, "photos-500.json"), "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")


def write(name, comment, events):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(f"# {comment}\n# time_ms visible_start visible_end scrolling\n")
        for t, start, scrolling in events:
            f.write(f"{t} {start} {start + ROWS - 1} {scrolling}\n")


# Slow read-through: read a page for 2 s, then scroll one page in 0.5 s, to the end.
events, t = [(0, 0, 0)], 0
for page in range(1, COUNT // ROWS):
    t += 2000
    for step in range(1, 6):
        events.append((t + step * 100, (page - 1) * ROWS + step * 2, 1))
    t += 500
    events.append((t, page * ROWS, 0))
write("slow-read.trace", "a slow read-through of the 500-photo manifest, a page at a time", events)

# Fast fling back and forth: 1 s flings across most of the list, 300 ms pauses between them.
events, t, position = [(0, 0, 0)], 0, 0
for target in [400, 50, 450, 100, 300, 0]:
    steps = 60
    for step in range(1, steps + 1):
        events.append((t + step * 16, position + (target - position) * step // steps, 1))
    t += steps * 16 + 16
    position = target
    events.append((t, position, 0))
    t += 300
write("fast-fling.trace", "fast flings back and forth over the 500-photo manifest", events)
