#!/usr/bin/env python3
"""Submits a manifest to a PhotoCluster coordinator over its HTTP API, follows the job to its end
over Server-Sent Events (resuming after a dropped connection or a coordinator restart), and
downloads one photo's output.

    pip install requests
    python3 submit_and_follow.py --api https://coordinator:8080 --token-file alice.token \
        --manifest samples/photos.plist --out alice/demo --filter sepia --download Horse --to horse.jpg

The manifest is a property list or JSON file of name -> URL (or a list of {name, url, filters}),
as `cluster submit` reads. --ca names the certificate to trust when the coordinator's is
self-signed. Exit status: 0 when every photo succeeded, 1 when some failed, 2 when the request
was refused (the problem's detail says why).
"""
import argparse
import json
import plistlib
import sys
import time

import requests


class Refused(Exception):
    """A 4xx answer: the request itself was refused."""


def load_manifest(path):
    with open(path, "rb") as file:
        data = file.read()
    entries = json.loads(data) if data.lstrip()[:1] in (b"{", b"[") else plistlib.loads(data)
    if isinstance(entries, dict):  # name -> URL, in name order as `cluster submit` takes it
        return [{"name": name, "url": url} for name, url in sorted(entries.items())]
    return entries


def problem(response):
    """The problem's detail (RFC 9457), or the body."""
    try:
        return response.json()["detail"]
    except (ValueError, KeyError):
        return response.text


def check(response, expected):
    if response.status_code == expected:
        return response
    if 400 <= response.status_code < 500:
        raise Refused(f"{response.status_code}: {problem(response)}")
    raise requests.HTTPError(f"{response.status_code}: {problem(response)}")


def events(session, url, last_event_id=None, retry=1.0, give_up_after=120, on_drop=None):
    """Yields (event, data) as the server sends them, reconnecting with Last-Event-ID when the
    stream drops (the coordinator restarted, a proxy timed out) until the `end` event."""
    failing_since = None
    while True:
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        try:
            with session.get(url, headers=headers, stream=True, timeout=(5, 60), verify=session.verify) as response:
                check(response, 200)
                failing_since = None
                fields = {}
                for line in response.iter_lines(decode_unicode=True):
                    if line:
                        if not line.startswith(":"):  # a comment keeps the stream alive
                            name, _, value = line.partition(":")
                            value = value[1:] if value.startswith(" ") else value
                            fields[name] = fields[name] + "\n" + value if name == "data" and "data" in fields else value
                        continue
                    if "data" in fields:
                        if "id" in fields:
                            last_event_id = fields["id"]
                        yield fields.get("event", "message"), json.loads(fields["data"])
                        if fields.get("event") == "end":
                            return
                    fields = {}
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError, requests.HTTPError) as error:
            failing_since = failing_since or time.monotonic()
            if time.monotonic() - failing_since > give_up_after:
                raise
            print(f"(the event stream dropped: {type(error).__name__}; resuming after event {last_event_id})", file=sys.stderr)
            if on_drop:
                on_drop(last_event_id)
        time.sleep(retry)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", required=True, help="the coordinator's HTTP address, e.g. https://127.0.0.1:8080")
    parser.add_argument("--token-file", required=True, help="a file holding an API token (cluster token create)")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--out", default="out", help="the output directory, under the coordinator's --output-root")
    parser.add_argument("--filter", action="append", default=[], help="a filter (NAME or NAME:key=value,...); repeat for a chain")
    parser.add_argument("--ca", help="a certificate to trust (a self-signed coordinator's)")
    parser.add_argument("--download", help="the name of a photo whose output to download")
    parser.add_argument("--to", help="where to write the downloaded output")
    args = parser.parse_args()

    session = requests.Session()
    with open(args.token_file) as file:
        session.headers["Authorization"] = "Bearer " + file.read().strip()
    if args.ca:
        # Passed with each request: requests prefers REQUESTS_CA_BUNDLE from the environment to a session's own.
        session.verify = args.ca

    try:
        body = {"manifest": load_manifest(args.manifest), "filters": args.filter or ["sepia"], "out": args.out, "replaceOutputs": True}
        job = check(session.post(f"{args.api}/v1/jobs", json=body, timeout=60, verify=session.verify), 201).json()
        print(f"job {job['id']}: {job['total']} photos")
        end = None
        for event, data in events(session, f"{args.api}/v1/jobs/{job['id']}/events"):
            if event == "photo":
                detail = data.get("output", "") if data["state"] == "done" else f"{data.get('stage', '')}: {data.get('reason', '')}"
                print(f"{data['name'][:32]:32}  {'ok' if data['state'] == 'done' else data['state']:9}  {detail}")
            elif event == "end":
                end = data
        counts = end["counts"]
        print(f"\n{counts['succeeded']} ok, {counts['failed']} failed, {counts['cancelled']} cancelled of {counts['total']}")
        if args.download:
            response = check(session.get(f"{args.api}/v1/jobs/{job['id']}/photos/{requests.utils.quote(args.download, safe='')}/output", timeout=60, verify=session.verify), 200)
            with open(args.to or args.download, "wb") as file:
                file.write(response.content)
            print(f"downloaded {args.download} ({response.headers['Content-Type']}, {len(response.content)} bytes) to {args.to or args.download}")
        return 0 if counts["failed"] == 0 and counts["cancelled"] == 0 else 1
    except Refused as refusal:
        print(f"refused: {refusal}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
