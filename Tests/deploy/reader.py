"""A viewer polling a deployed site while a deploy runs, as thousands of embedded players
do: every file a page loads or a manifest names is fetched again and again, and each must
be there and whole. A torn file (a page without its end, a manifest that does not parse, a
PNG cut short, a frame whose bytes are not the manifest's) or a missing one is a problem,
and any problem fails the test: a deploy must never show a reader half of anything.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import threading
import zlib

# What a page loads (scripts, images, styles, its manifest), not where it links to: on a
# first deploy the site index, which links to the page, comes after it.
ASSET = re.compile(r'(?:\bsrc="|<link[^>]*\bhref=")([^"#?:]+)"')
# A content-hashed asset name: the hash is the start of the file's SHA-256.
HASHED = re.compile(r"\.([0-9a-f]{8})\.[a-z]+$")


def png_whole(data: bytes) -> bool:
    """Whether `data` is a PNG from signature to IEND with every chunk's CRC right."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    at = 8
    while at + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        end = at + 12 + length
        if end > len(data):
            return False
        if zlib.crc32(data[at + 4:end - 4]) != struct.unpack(">I", data[end - 4:end])[0]:
            return False
        if kind == b"IEND":
            return end == len(data)
        at = end
    return False


def html_whole(data: bytes) -> bool:
    return data.rstrip().endswith(b"</html>")


def json_whole(data: bytes):
    try:
        return json.loads(data)
    except ValueError:
        return None


class Reader(threading.Thread):
    """Polls the site on `server` until finish(): the site index and manifest, the
    animation's page and what it loads, its manifest, every frame (bytes checked against
    the manifest's sha256), its poster and every fallback tile of every frame.

    Until the animation's page has been seen, the site is not yet published (a first
    deploy) and nothing is checked; from then on, nothing it needs may be missing.
    `tiles` are the fallback tiles' `z/x/y.png` paths (the same for every frame)."""

    def __init__(self, server, animation: str = "radar", tiles: list[str] = ()):
        super().__init__(daemon=True)
        self.fetch = server.fetch
        self.animation = animation
        self.tiles = list(tiles)
        self.stop_event = threading.Event()
        #: (path, what was wrong) for every read that was not whole.
        self.problems: list[tuple[str, str]] = []
        self.torn = 0
        self.missing = 0
        self.rounds = 0
        self.reads = 0
        self.seen_page = self.fetch(f"{animation}/index.html") is not None
        self.seen_index = self.fetch("index.html") is not None

    def run(self) -> None:
        # A short pause a round: a reader spinning flat out would take a core of the two
        # that the deploy and the server share.
        while not self.stop_event.wait(0.002):
            try:
                self.check_once()
            except Exception as error:  # a reader that stops reading would hide everything after
                self.problems.append(("", f"reader: {error!r}"))
            self.rounds += 1

    def get(self, path: str) -> bytes | None:
        self.reads += 1
        return self.fetch(path)

    def absent(self, path: str, why: str) -> None:
        self.missing += 1
        self.problems.append((path, f"{path} ({why}): 404"))

    def torn_file(self, path: str, what: str) -> None:
        self.torn += 1
        self.problems.append((path, f"{path}: {what}"))

    def check_once(self) -> None:
        a = self.animation
        page = self.get(f"{a}/index.html")
        if page is None:
            if self.seen_page:
                self.absent(f"{a}/index.html", "after it had been published")
            return
        self.seen_page = True
        if not html_whole(page):
            self.torn_file(f"{a}/index.html", "page without its end")
        for ref in set(ASSET.findall(page.decode("utf-8", "replace"))):
            self.check_asset(os.path.normpath(os.path.join(a, ref)))
        self.check_site_index()
        raw = self.get(f"{a}/manifest.json")
        if raw is None:
            self.absent(f"{a}/manifest.json", "while its page is published")
            return
        manifest = json_whole(raw)
        if manifest is None:
            self.torn_file(f"{a}/manifest.json", "does not parse")
            return
        for frame in manifest["frames"]:
            data = self.get(f"{a}/{frame['url']}")
            if data is None:
                self.absent(f"{a}/{frame['url']}", "named by the manifest")
            elif hashlib.sha256(data).hexdigest() != frame["sha256"]:
                self.torn_file(f"{a}/{frame['url']}", "bytes do not match the manifest's sha256")
        fallback = manifest.get("fallback")
        if fallback and self.tiles:
            for index in range(len(manifest["frames"])):
                # As the player builds them: the frame's own template (its tiles' folder is
                # named by their content, so two frames alike share one).
                template = fallback["templates"][index]
                for tile in self.tiles:
                    z, x, y = tile[:-len(".png")].split("/")
                    path = f"{a}/" + template.replace("{z}", z).replace("{x}", x).replace("{y}", y)
                    self.check_png(path, "a fallback tile of a published frame")

    def check_site_index(self) -> None:
        index = self.get("index.html")
        if index is None:
            if self.seen_index:
                self.absent("index.html", "after it had been published")
            return
        self.seen_index = True
        if not html_whole(index):
            self.torn_file("index.html", "page without its end")
        raw = self.get("manifest.json")
        site = json_whole(raw) if raw is not None else None
        if raw is None:
            self.absent("manifest.json", "while the site index is published")
        elif site is None:
            self.torn_file("manifest.json", "does not parse")
        else:
            for animation in site["animations"]:
                self.check_png(animation["poster"], "the site manifest's poster")
                for key in ("page", "embed"):
                    data = self.get(animation[key])
                    if data is None:
                        self.absent(animation[key], "named by the site manifest")
                    elif not html_whole(data):
                        self.torn_file(animation[key], "page without its end")

    def check_asset(self, path: str) -> None:
        data = self.get(path)
        if data is None:
            self.absent(path, "loaded by the page")
            return
        if path.endswith("manifest.json"):
            if json_whole(data) is None:
                self.torn_file(path, "does not parse")
        elif path.endswith(".png"):
            if not png_whole(data):
                self.torn_file(path, "PNG cut short")
        elif m := HASHED.search(path):
            if not hashlib.sha256(data).hexdigest().startswith(m[1]):
                self.torn_file(path, "bytes do not match the hash in its name")
        elif not data:
            self.torn_file(path, "empty")

    def check_png(self, path: str, why: str) -> None:
        data = self.get(path)
        if data is None:
            self.absent(path, why)
        elif not png_whole(data):
            self.torn_file(path, "PNG cut short")

    def finish(self) -> None:
        self.stop_event.set()
        self.join(60)

    def verdict(self, server, replaced: set[str] = frozenset()) -> str:
        """The problems a test fails on, one a line (empty: none). On a server that cannot
        replace a file atomically (`server.tears`) a problem with a file the deploy replaced
        is that server's, said plainly in the docs; any other is still a failure."""
        allowed = replaced if server.tears else set()
        return "\n".join(sorted({text for path, text in self.problems if path not in allowed}))

    def summary(self) -> str:
        return f"{self.rounds} rounds, {self.reads} reads, {self.torn} torn, {self.missing} missing"
