#!/usr/bin/env python3
"""Submits a job of --photos photos and follows its event stream with the Python example's
reader, writing how many photo events it heard to --progress as it goes (scripts/check-http-api
SIGKILLs and restarts the coordinator meanwhile). Fails unless every photo was heard, each once
or again only with a later id, and the ids only grew."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import requests  # noqa: E402
from submit_and_follow import check, events  # noqa: E402

SAMPLES = ["astronaut.jpg", "chelsea.jpg", "clock.jpg", "coffee.jpg", "coins.jpg", "grass.jpg", "gravel.jpg", "horse.png",
           "hubble_deep_field.jpg", "ihc.jpg", "retina.jpg", "rocket.jpg", "brick.png", "camera.png"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--ca")
    parser.add_argument("--photos-port", required=True)
    parser.add_argument("--photos", type=int, default=240)
    parser.add_argument("--progress", required=True)
    args = parser.parse_args()

    session = requests.Session()
    session.headers["Authorization"] = "Bearer " + open(args.token_file).read().strip()
    session.verify = args.ca or True
    names = [f"photo-{i:04d}" for i in range(args.photos)]
    manifest = [{"name": name, "url": f"http://127.0.0.1:{args.photos_port}/{SAMPLES[i % len(SAMPLES)]}?n={i}"}
                for i, name in enumerate(names)]
    job = check(session.post(f"{args.api}/v1/jobs", json={"manifest": manifest, "filters": ["sepia"], "out": "alice/follow"}, timeout=60, verify=session.verify), 201).json()

    heard, ids, drops = [], [], []
    end = None
    for event, data in events(session, f"{args.api}/v1/jobs/{job['id']}/events", retry=0.2, on_drop=drops.append):
        if event == "photo":
            heard.append(data["name"])
            with open(args.progress + ".tmp", "w") as file:
                file.write(str(len(heard)))
            os.replace(args.progress + ".tmp", args.progress)
        elif event == "end":
            end = data
    missing = sorted(set(names) - set(heard))
    print(f"job {job['id']}: heard {len(heard)} photo events for {len(set(heard))} of {len(names)} photos "
          f"over {len(drops) + 1} connections (resumed after ids {drops})")
    if missing:
        print(f"MISSED {len(missing)} photos: {missing[:10]}")
        return 1
    if not drops:
        print("the stream never dropped: the coordinator was not restarted while it was followed")
        return 1
    counts = end["counts"]
    if counts["done"] != len(names) or counts["total"] != len(names):
        print(f"the end event's counts are wrong: {json.dumps(counts)}")
        return 1
    print(f"none missed; end: {json.dumps(counts, sort_keys=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
