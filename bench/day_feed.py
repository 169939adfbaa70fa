#!/usr/bin/env python3
"""A live radar feed for bench/day.sh, on 127.0.0.1: /radar/YYYYMMDDHHMM/z/x/y.png.

The feed's clock is the ISO time in the file named by --clock (the benchmark moves it with
each build's --at). A time the clock has not reached answers 404; a published one answers a
small PNG drawn from the time and the tile (deterministic), with Cache-Control: max-age=300
and an ETag, and 304 to a matching If-None-Match. Every request is counted by kind in
--counts (a JSON file rewritten after each request), so the benchmark can read what a build
asked for. Stops on SIGTERM.
"""
import argparse
import datetime
import http.server
import json
import struct
import threading
import zlib


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + row for row in rows)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def tile(stamp, z, x, y):
    # A band of "rain" that moves with time: its column depends on the minute of the day.
    minutes = int(stamp[8:10]) * 60 + int(stamp[10:12])
    centre = (minutes * 3 + x * 37 + y * 11) % 256
    rows = []
    for row in range(256):
        line = bytearray(256 * 4)
        for col in range(max(0, centre - 40), min(256, centre + 40)):
            level = 255 - abs(col - centre) * 5
            line[col * 4:col * 4 + 4] = bytes((30, min(255, level), 60, 200))
        rows.append(bytes(line))
    return png(256, 256, rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--clock", required=True)
    parser.add_argument("--counts", required=True)
    args = parser.parse_args()
    counts = {"200": 0, "304": 0, "404": 0}
    lock = threading.Lock()
    cache = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, status, body=b"", headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with lock:
                counts[str(status)] = counts.get(str(status), 0) + 1
                with open(args.counts + ".tmp", "w") as f:
                    json.dump(counts, f)
                import os
                os.replace(args.counts + ".tmp", args.counts)

        def do_GET(self):
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) != 5 or parts[0] != "radar":
                return self.answer(404, headers=[("Cache-Control", "max-age=300")])
            stamp, z, x, y = parts[1], int(parts[2]), int(parts[3]), int(parts[4].split(".")[0])
            now = open(args.clock).read().strip()
            published = datetime.datetime.strptime(stamp, "%Y%m%d%H%M").replace(tzinfo=datetime.timezone.utc)
            clock = datetime.datetime.fromisoformat(now.replace("Z", "+00:00"))
            if published > clock:
                return self.answer(404, headers=[("Cache-Control", "max-age=60")])
            etag = '"%s-%d-%d-%d"' % (stamp, z, x, y)
            if self.headers.get("If-None-Match") == etag:
                return self.answer(304, headers=[("ETag", etag), ("Cache-Control", "max-age=300")])
            key = (stamp, z, x, y)
            body = cache.get(key) or tile(stamp, z, x, y)
            cache[key] = body
            self.answer(200, body, [("Content-Type", "image/png"), ("ETag", etag), ("Cache-Control", "max-age=300")])

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
