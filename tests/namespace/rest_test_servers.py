# SPDX-License-Identifier: Apache-2.0
"""HTTP servers for tests/namespace/rest_namespace_test.cc (run by $LANCE_PYTHON).

Each mode prints its port on the first line of stdout once it listens, then serves until
stdin closes (the test holds the pipe; when the test process dies the server goes too).

  adapter ROOT
      real Lance: pylance's `lance.namespace.RestAdapter("dir", {"root": ROOT})`.
  recorder LOG [--script FILE] [--tls CERT KEY [--client-ca CA]]
      a recording server (standard library only) for what a client SENDS: every request
      is appended to LOG as one JSON line {method, path, query (raw), headers (lowercase
      names), body_hex}. Answers come from the script, in order: a JSON list of
      {"status": int, "body": str, "content_type"?: str, "delay_ms"?: int}; once it is
      used up, every request gets 200 `{}`. With --tls it speaks HTTPS with CERT/KEY;
      with --client-ca it also requires a client certificate signed by CA (mTLS).
"""

import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def wait_for_stdin_close():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass


def run_adapter(root):
    import lance.namespace

    adapter = lance.namespace.RestAdapter("dir", {"root": root}, port=0)
    adapter.start()
    print(adapter.port, flush=True)
    wait_for_stdin_close()
    adapter.stop()


def run_recorder(log_path, script_path, tls, client_ca=None):
    script = []
    if script_path:
        with open(script_path) as f:
            script = json.load(f)
    lock = threading.Lock()
    state = {"next": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def handle_any(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            record = {
                "method": self.command,
                "path": path,
                "query": query,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body_hex": body.hex(),
            }
            with lock:
                with open(log_path, "a") as f:
                    f.write(json.dumps(record) + "\n")
                i = state["next"]
                state["next"] += 1
            answer = script[i] if i < len(script) else {"status": 200, "body": "{}"}
            if answer.get("delay_ms"):
                time.sleep(answer["delay_ms"] / 1000.0)
            data = answer.get("body", "").encode()
            self.send_response(answer["status"])
            self.send_header("content-type", answer.get("content_type", "application/json"))
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = handle_any
        do_POST = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
        if client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(client_ca)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    wait_for_stdin_close()
    server.shutdown()


def main(argv):
    if len(argv) >= 2 and argv[0] == "adapter":
        run_adapter(argv[1])
        return 0
    if len(argv) >= 2 and argv[0] == "recorder":
        log_path, script_path, tls, client_ca = argv[1], None, None, None
        rest = argv[2:]
        while rest:
            if rest[0] == "--script" and len(rest) >= 2:
                script_path, rest = rest[1], rest[2:]
            elif rest[0] == "--tls" and len(rest) >= 3:
                tls, rest = (rest[1], rest[2]), rest[3:]
            elif rest[0] == "--client-ca" and len(rest) >= 2:
                client_ca, rest = rest[1], rest[2:]
            else:
                print("unknown argument " + rest[0], file=sys.stderr)
                return 2
        run_recorder(log_path, script_path, tls, client_ca)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
