"""A tile server on 127.0.0.1 that fails the way feeds fail, counting the requests it gets.

usage: failing_host.py MODE PORT COUNTFILE
  vary    every request: HTTP 500 with a new body (a server failing at random)
  same    every request: one HTTP 500 body (TiTiler's missing COG, for every frame)
  mixed   frame 0 (paths /0/...): one HTTP 500 body; other frames: a 256x256 PNG
  hung    accepts, reads the request, never answers
COUNTFILE gets "<total> <frame 0>" after each request.
"""
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORT, COUNTS = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MISSING = b'{"detail": "/data/cog-0930.tif: No such file or directory"}'


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


ROWS = b"".join(b"\x00" + b"\x80\x20\x20" * 256 for _ in range(256))
PNG = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(ROWS)) + chunk(b"IEND", b""))
counts = [0, 0]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        with lock:
            counts[0] += 1
            counts[1] += self.path.startswith("/0/")
            with open(COUNTS, "w") as out:
                out.write("%d %d\n" % tuple(counts))
        if MODE == "hung":
            time.sleep(86400)
            return
        if MODE == "mixed" and not self.path.startswith("/0/"):
            self.answer(200, PNG, "image/png")
        else:
            self.answer(500, MISSING if MODE in ("same", "mixed") else b"failure %s" % uuid.uuid4().hex.encode(), "application/json")

    def answer(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
