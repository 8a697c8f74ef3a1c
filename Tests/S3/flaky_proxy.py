"""An HTTP relay in front of an S3 server that answers the first N requests itself with
503 SlowDown, as a throttled or failing S3 would, and relays every later request unchanged
(the Host header included, so signatures still verify). Prints each request it fails or relays
as a line on standard output: "failed METHOD PATH" or "relayed METHOD PATH STATUS".

  flaky_proxy.py --listen HOST:PORT --target HOST:PORT --fail N
"""
import argparse
import http.client
import http.server
import sys
import threading

SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
             b'<Message>Please reduce your request rate.</Message></Error>')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--fail", type=int, default=0)
    args = parser.parse_args()
    target_host, target_port = args.target.rsplit(":", 1)
    lock = threading.Lock()
    state = {"to_fail": args.fail}

    class Relay(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            with lock:
                fail = state["to_fail"] > 0
                state["to_fail"] -= 1 if fail else 0
            if fail:
                # Logged before answering, so whoever hears the answer finds it in the log.
                print(f"failed {self.command} {self.path}", flush=True)
                self.send_response(503, "Slow Down")
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(SLOW_DOWN)))
                self.end_headers()
                self.wfile.write(SLOW_DOWN)
                return
            upstream = http.client.HTTPConnection(target_host, int(target_port), timeout=60)
            upstream.request(self.command, self.path, body=body or None, headers={k: v for k, v in self.headers.items()})
            response = upstream.getresponse()
            payload = response.read()
            print(f"relayed {self.command} {self.path} {response.status}", flush=True)
            self.send_response(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in ("content-length", "transfer-encoding", "connection", "server", "date"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            upstream.close()

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any

        def log_message(self, *args):
            pass

    host, port = args.listen.rsplit(":", 1)
    server = http.server.ThreadingHTTPServer((host, int(port)), Relay)
    print("listening", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
