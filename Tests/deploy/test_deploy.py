"""`matsite deploy` end to end: the real binary, rclone, and a real SFTP or S3 server on
127.0.0.1 (see conftest.py). A rolling window is built with `--at`, deployed, moved one
frame and deployed again, and deployed unchanged; a reader polls the page, its manifest
and every frame that manifest names throughout each deploy.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import struct
import subprocess
import threading
import time
import zlib
from pathlib import Path

import pytest

from servers import Fetcher, remote_tree

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("MATSITE_BIN", str(REPO / ".build" / "debug" / "matsite"))

CONFIG = """\
title: Deploy test
animations:
  - id: radar
    title: Radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 200
    source: {{ path: "feed/{{time}}/{{z}}/{{x}}/{{y}}.png", tile_size: 64 }}
    time_format: "%Y%m%d%H%M"
    frames: {{ last: PT{minutes}M, step: PT10M }}
    fallback: {{ levels: 1 }}
{animation_extra}deploy:
{deploy}
"""

T0 = "2026-11-21T12:00:00Z"
T1 = "2026-11-21T12:10:00Z"
T2 = "2026-11-21T12:20:00Z"
T5 = "2026-11-21T12:50:00Z"

REPORT = re.compile(r"(would upload|uploaded) (\d+) files, .*?(?:; (?:would copy|copied) (\d+) on the target)?; (\d+) unchanged; (?:would delete|deleted) (\d+)(?:, (\d+) held by max_deletes)?; (\d+) in their grace period")


def png(width: int, height: int, pixel) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def write_feed(folder: Path) -> None:
    """A local tile feed, feed/YYYYMMDDHHMM/{z}/{x}/{y}.png, every 10 minutes from 11:20 to
    12:50, covering the box at zooms 4 and 5; each time its own colours."""
    for step in range(10):
        stamp = time.strftime("%Y%m%d%H%M", time.gmtime(1795260000 + step * 600))
        for z, xs, ys in ((4, range(6, 10), range(4, 8)), (5, range(12, 19), range(8, 15))):
            for x in xs:
                for y in ys:
                    tile = folder / "feed" / stamp / str(z) / str(x) / f"{y}.png"
                    tile.parent.mkdir(parents=True, exist_ok=True)
                    tile.write_bytes(png(64, 64, lambda px, py: ((step * 25 + px) % 256, (x * 30 + py) % 256, (y * 40) % 256)))


class Project:
    def __init__(self, folder: Path, server, minutes: int = 30, animation_extra: str = "", **deploy):
        self.folder = folder
        self.animation_extra = animation_extra
        self.server = server
        self.minutes = minutes
        self.deploy = {"target": server.target(), **deploy}
        self.site = folder / "site"
        if not (folder / "feed").exists():
            write_feed(folder)

    def write(self, **changes) -> None:
        self.deploy.update(changes)
        lines = []
        for key, value in self.deploy.items():
            if value is None:
                continue
            lines.append(f"  {key}: {json.dumps(value)}")
        text = CONFIG.format(minutes=self.minutes, animation_extra=self.animation_extra, deploy="\n".join(lines))
        (self.folder / "matsite.yml").write_text(text)

    def build(self, at: str) -> None:
        self.write()
        proc = subprocess.run([BIN, "build", "-c", "matsite.yml", "--at", at, "--quiet"], cwd=self.folder,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr

    def run_deploy(self, *extra: str, expect: int = 0) -> dict:
        self.write()
        proc = subprocess.run([BIN, "deploy", "-c", "matsite.yml", *extra], cwd=self.folder, env=self.server.env(),
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == expect, f"exit {proc.returncode}:\n{proc.stderr}"
        if expect != 0:
            return {"stderr": proc.stderr}
        m = REPORT.search(proc.stderr)
        assert m, proc.stderr
        waves = {int(n): (int(f), b, int(c or 0)) for n, f, b, c in
                 re.findall(r"wave (\d) [a-z -]+: (\d+) files, ([\d.]+ \w+)(?: \(and (\d+) copied on the target\))?", proc.stderr)}
        return {"uploaded": int(m[2]), "copied": int(m[3] or 0), "unchanged": int(m[4]), "deleted": int(m[5]),
                "held": int(m[6] or 0), "pending": int(m[7]), "waves": waves, "stderr": proc.stderr}

    def site_tree(self) -> dict[str, bytes]:
        return {str(p.relative_to(self.site)): p.read_bytes() for p in self.site.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(self.site).parts)}


class Reader(threading.Thread):
    """Polls like a viewer throughout a deploy: the animation page, every asset it links,
    its manifest, and every frame (bytes checked against the manifest's sha256). Once the
    page has been seen, nothing it needs may ever be missing."""

    # What the page loads (scripts, images, styles, its manifest), not where it links to:
    # on a first deploy the site index, which links to the page, comes after it.
    ASSET = re.compile(r'(?:\bsrc="|<link[^>]*\bhref=")([^"#?:]+)"')

    def __init__(self, server):
        super().__init__(daemon=True)
        self.fetch = Fetcher(server)
        self.stop_event = threading.Event()
        self.problems: list[str] = []
        self.torn = 0
        self.rounds = 0
        self.rounds_seen_page = False

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.check_once()
            self.rounds += 1

    def check_once(self) -> None:
        page = self.fetch.get("radar/index.html")
        if page is None:
            if self.rounds_seen_page:
                self.problems.append("radar/index.html: 404 after it had been published")
            return
        self.rounds_seen_page = True
        for ref in set(self.ASSET.findall(page.decode("utf-8", "replace"))):
            path = os.path.normpath(os.path.join("radar", ref))
            if self.fetch.get(path) is None:
                self.problems.append(f"{path} (linked by the page): 404")
        raw = self.fetch.get("radar/manifest.json")
        if raw is None:
            self.problems.append("radar/manifest.json: 404 while its page is published")
            return
        try:
            manifest = json.loads(raw)
        except ValueError:
            # A file server written in place (rclone 1.60 over SFTP) can be read mid-write.
            self.torn += 1
            return
        for frame in manifest["frames"]:
            data = self.fetch.get("radar/" + frame["url"])
            if data is None:
                self.problems.append(f"radar/{frame['url']} (named by the manifest): 404")
            elif hashlib.sha256(data).hexdigest() != frame["sha256"]:
                self.problems.append(f"radar/{frame['url']}: bytes do not match the manifest's sha256")

    def finish(self) -> None:
        self.stop_event.set()
        self.join(60)


def deploy_watched(project: Project, *extra: str) -> dict:
    reader = Reader(project.server)
    reader.rounds_seen_page = reader.fetch.get("radar/index.html") is not None
    reader.start()
    try:
        result = project.run_deploy(*extra)
    finally:
        reader.finish()
    assert not reader.problems, "\n".join(sorted(set(reader.problems)))
    assert reader.rounds > 0
    if project.server.kind == "s3":
        assert reader.torn == 0, "an S3 PUT is atomic: no manifest may ever be read half-written"
    result["torn"] = reader.torn
    print(f"{project.server.kind}: reader {reader.rounds} rounds, {reader.torn} torn manifest reads")
    return result


def frames_of(site: Path) -> set[str]:
    manifest = json.loads((site / "radar" / "manifest.json").read_text())
    return {"radar/" + f["url"] for f in manifest["frames"]}


def without_ledger(tree: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in tree.items() if k != ".matsite-deploy.json"}


def test_deploy_move_and_unchanged(server, tmp_path):
    """Cold deploy, a one-frame window move, an unchanged redeploy; the reader never
    gets a 404 or a frame that does not match its manifest."""
    project = Project(tmp_path, server)
    project.build(T0)
    first = deploy_watched(project)
    site0 = project.site_tree()
    assert first["uploaded"] == len(site0) and first["unchanged"] == 0
    assert without_ledger(remote_tree(server)) == site0
    old_frames = frames_of(project.site)

    project.build(T1)
    moved = deploy_watched(project)
    site1 = project.site_tree()
    new_frames = frames_of(project.site)
    # One new frame's bytes; the other three are the old ones, renumbered.
    assert len({f.split("-")[-1] for f in new_frames} - {f.split("-")[-1] for f in old_frames}) == 1
    changed = {p for p, b in site1.items() if site0.get(p) != b}
    if server.kind == "s3":
        # One frame uploaded; the others, renumbered by the move (NNNN-<hash>.png), are
        # copied by the store itself from their old names.
        assert moved["waves"][1][0] == 1, moved["stderr"]
        assert moved["waves"][1][2] == len(new_frames) - 1
        # Fallback tiles live in per-frame folders (tiles/NNNN/...): renumbered too, copied.
        assert moved["copied"] >= len(new_frames) - 1
    else:
        # SFTP has no server-side copy: the renumbered frames go again.
        assert moved["waves"][1][0] == len(new_frames) and moved["copied"] == 0, moved["stderr"]
    assert moved["uploaded"] + moved["copied"] == len(changed)
    assert moved["deleted"] == 0 and moved["pending"] == len(set(site0) - set(site1)) >= 1
    tree = without_ledger(remote_tree(server))
    assert {p: tree[p] for p in site1} == site1
    assert (old_frames - new_frames) <= set(tree), "the frame that left the window is kept for the grace period"

    again = project.run_deploy()
    assert again["uploaded"] == 0 and again["copied"] == 0 and again["unchanged"] == len(site1)
    assert "uploading" not in again["stderr"]
    print(moved["stderr"])


def test_s3_headers(s3, tmp_path):
    """Headers by wave, also on frames the store copied after a window move; WebP frames
    and PNG posters."""
    project = Project(tmp_path, s3, animation_extra="    format: webp-lossless\n")
    project.build(T0)
    project.run_deploy()
    project.build(T1)
    assert project.run_deploy()["copied"] >= 1
    client = s3.client()
    frame = sorted(frames_of(project.site))[0]
    expected = {
        frame: ("image/webp", "public, max-age=31536000, immutable"),
        "radar/manifest.json": ("application/json", "no-cache"),
        "manifest.json": ("application/json", "no-cache"),
        "radar/index.html": ("text/html; charset=utf-8", "no-cache"),
        "radar/poster.png": ("image/png", "no-cache"),
    }
    js = next(p for p in project.site_tree() if p.startswith("assets/player.") and p.endswith(".js"))
    expected[js] = ("text/javascript; charset=utf-8", "public, max-age=31536000, immutable")
    for path, (kind, cache) in expected.items():
        head = client.head_object(Bucket=s3.bucket, Key="www/" + path)
        assert (head["ContentType"], head.get("CacheControl")) == (kind, cache), path


def test_grace_zero_deletes_and_cap(sftp, tmp_path):
    project = Project(tmp_path, sftp, grace="PT0S", max_deletes=1)
    project.build(T0)
    project.run_deploy()
    project.build(T5)  # the window moved 5 steps: 3 of its 4 frames (and more) left
    moved = project.run_deploy()
    assert moved["deleted"] == 1 and moved["held"] >= 1
    assert "max_deletes (1) reached" in moved["stderr"]
    project.write(max_deletes=1000)
    rest = project.run_deploy()
    assert rest["deleted"] == moved["held"] and rest["uploaded"] == 0
    assert without_ledger(remote_tree(sftp)) == project.site_tree()
    # Folders emptied by the deletes go too.
    assert not [d for d in sftp.root.rglob("*") if d.is_dir() and not any(d.iterdir())]


def test_dry_run_changes_nothing(s3, tmp_path):
    project = Project(tmp_path, s3, grace="PT0S")
    project.build(T0)
    project.run_deploy()
    before = remote_tree(s3)
    project.build(T1)
    plan = project.run_deploy("--dry-run")
    assert plan["uploaded"] >= 1 and plan["deleted"] >= 1
    assert re.search(r"upload radar/frames/\d{4}-[0-9a-f]{8}\.png", plan["stderr"])
    assert re.search(r"delete radar/frames/", plan["stderr"])
    assert remote_tree(s3) == before


def test_killed_deploy_converges(server, tmp_path):
    """SIGKILL to the deploy's process group while wave 1 is uploading (a slow link),
    then an ordinary rerun: the target ends up holding exactly the site."""
    project = Project(tmp_path, server, grace="PT0S", rclone_flags=["--bwlimit=40k", "--transfers=1"])
    project.build(T0)
    project.write()
    proc = subprocess.Popen([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=server.env(),
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "uploading content-hashed files" in line:
            break
    time.sleep(2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    assert any("uploading content-hashed files" in line for line in seen), "".join(seen)
    partial = without_ledger(remote_tree(server))
    assert partial != project.site_tree(), "the kill came too late to test anything"
    assert "radar/index.html" not in partial, "no page before its frames"
    project.write(rclone_flags=None)
    project.deploy.pop("rclone_flags")
    project.run_deploy()
    assert without_ledger(remote_tree(server)) == project.site_tree()


def test_usage_errors(sftp, tmp_path):
    project = Project(tmp_path, sftp)
    project.build(T0)
    no_rclone = Project(tmp_path, sftp, rclone="/nonexistent/rclone")
    err = no_rclone.run_deploy(expect=2)["stderr"]
    assert "deploy.rclone" in err and "not found" in err
    (tmp_path / "matsite.yml").write_text(CONFIG.split("{animation_extra}deploy:")[0].format(minutes=30))
    proc = subprocess.run([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2 and "deploy.target" in proc.stderr
    # A server that refuses the connection: a transfer failure, exit 1, and no secret shown.
    dead = Project(tmp_path, sftp, target=":sftp,host=127.0.0.1,port=1,user=x,pass=hunter2secret:/srv")
    err = dead.run_deploy(expect=1)["stderr"]
    assert "hunter2secret" not in err and "pass=***" in err


def test_build_during_deploy(s3, tmp_path):
    """A build that publishes while a deploy is sending: the deploy sends the site it
    snapshotted, whole, and leaves no snapshot behind; the next deploy sends the new one."""
    project = Project(tmp_path, s3, rclone_flags=["--bwlimit=40k", "--transfers=1"])
    project.build(T0)
    site0 = project.site_tree()
    project.write()
    proc = subprocess.Popen([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=s3.env(),
                            stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "uploading content-hashed files" in line:
            break
    project.build(T1)
    assert project.site_tree() != site0
    rest, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, "".join(seen) + rest
    assert without_ledger(remote_tree(s3)) == site0
    assert not list(tmp_path.glob(".site.matsite-deploy-*"))
    project.deploy.pop("rclone_flags")
    project.run_deploy()
    tree, site1 = remote_tree(s3), project.site_tree()
    assert {p: tree.get(p) for p in site1} == site1
