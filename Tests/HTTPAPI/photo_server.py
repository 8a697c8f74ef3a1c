#!/usr/bin/env python3
"""Serves a directory of photos on loopback, each answer after --delay-ms, ignoring query strings
(so a manifest can name one file under many distinct URLs). For scripts/check-http-api."""
import argparse
import functools
import http.server
import time


class SlowHandler(http.server.SimpleHTTPRequestHandler):
    delay = 0.0

    def do_GET(self):
        time.sleep(self.delay)
        self.path = self.path.split("?", 1)[0]
        super().do_GET()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay-ms", type=float, default=0)
    args = parser.parse_args()
    SlowHandler.delay = args.delay_ms / 1000
    handler = functools.partial(SlowHandler, directory=args.root)
    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler).serve_forever()


if __name__ == "__main__":
    main()
