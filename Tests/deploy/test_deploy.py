"""`matsite deploy` end to end: the real binary, rclone, and a real server on 127.0.0.1
(OpenSSH's SFTP, nginx's WebDAV, `rclone serve webdav`, moto's S3; see conftest.py). A
rolling window is built with `--at`, deployed, moved one frame and deployed again, and
deployed unchanged, while a reader polls the site (reader.py): no reader may ever get a
file that is missing or torn. Each server's own log says which files a deploy wrote.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from pathlib import Path

from reader import Reader
import pytest

from servers import PARTIAL, STAGING, DeadHost, FaultProxy, S3Server, base_env, rclone_binary

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("MATSITE_BIN", str(REPO / ".build" / "debug" / "matsite"))
LEDGER = "matsite-deploy.json"
JOURNAL = "matsite-deploy/"


def is_ledger(path: str | None) -> bool:
    """The ledger's base or one of its journal entries."""
    return path is not None and (path == LEDGER or path.startswith(JOURNAL))

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
T5 = "2026-11-21T12:50:00Z"

REPORT = re.compile(r"(would upload|uploaded) (\d+) files, .*?(?:; (?:would copy|copied) (\d+) on the target)?; (\d+) unchanged; (?:would delete|deleted) (\d+)(?:, (\d+) held by max_deletes)?; (\d+) in their grace period")
# rclone's notices that matsite drops or says in its own words.
NOISE = ("Can't save config", "Config file", "NOTICE: ", "No host key validation")


def png(width: int, height: int, pixel) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


_FEED: list[Path] = []


def shared_feed() -> Path:
    """The tile feed every test's project links to: made once a run (it takes seconds)."""
    if not _FEED:
        folder = Path(tempfile.mkdtemp(prefix="matsite-deploy-feed-"))
        atexit.register(shutil.rmtree, folder, True)
        write_feed(folder)
        _FEED.append(folder / "feed")
    return _FEED[0]


def write_feed(folder: Path, first: int = 1795260000, count: int = 10, name: str = "feed") -> None:
    """A local tile feed, <name>/YYYYMMDDHHMM/{z}/{x}/{y}.png, `count` times 10 minutes apart
    from `first` (Unix seconds; by default from 11:20 to 12:50), covering the box at zooms 4
    and 5; each time its own colours. bench/deploy.sh draws its fallback job's feed with it."""
    for step in range(count):
        stamp = time.strftime("%Y%m%d%H%M", time.gmtime(first + step * 600))
        for z, xs, ys in ((4, range(6, 10), range(4, 8)), (5, range(12, 19), range(8, 15))):
            for x in xs:
                for y in ys:
                    tile = folder / name / stamp / str(z) / str(x) / f"{y}.png"
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
            (folder / "feed").symlink_to(shared_feed())

    def write(self, **changes) -> None:
        self.deploy.update(changes)
        lines = [f"  {key}: {json.dumps(value)}" for key, value in self.deploy.items() if value is not None]
        text = CONFIG.format(minutes=self.minutes, animation_extra=self.animation_extra, deploy="\n".join(lines))
        (self.folder / "matsite.yml").write_text(text)

    def build(self, at: str) -> None:
        self.write()
        proc = subprocess.run([BIN, "build", "-c", "matsite.yml", "--at", at, "--quiet"], cwd=self.folder,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr

    def run_deploy(self, *extra: str, expect: int = 0, env: dict | None = None) -> dict:
        self.write()
        mark = self.server.mark()
        started = time.monotonic()
        proc = subprocess.run([BIN, "deploy", "-c", "matsite.yml", *extra], cwd=self.folder, env=env or self.server.env(),
                              capture_output=True, text=True, timeout=900)
        result = {"stderr": proc.stderr, "seconds": time.monotonic() - started}
        assert proc.returncode == expect, f"exit {proc.returncode}:\n{proc.stderr}"
        # rclone's notices never reach matsite's output as they are.
        assert not [line for line in proc.stderr.splitlines() if any(n in line for n in NOISE)], proc.stderr
        if expect != 0:
            return result
        m = REPORT.search(proc.stderr)
        assert m, proc.stderr
        waves = {int(n): (int(f), b, int(c or 0)) for n, f, b, c in
                 re.findall(r"wave (\d) [a-z -]+: (\d+) files, ([\d.]+ \w+)(?: \(and (\d+) copied on the target\))?", proc.stderr)}
        writes = self.server.writes(mark)
        result.update({"uploaded": int(m[2]), "copied": int(m[3] or 0), "unchanged": int(m[4]), "deleted": int(m[5]),
                       "held": int(m[6] or 0), "pending": int(m[7]), "waves": waves,
                       "writes": [w for w in writes if not is_ledger(w.path)], "ledger_writes": len([w for w in writes if is_ledger(w.path)]),
                       "ledger_bytes": sum(w.bytes or 0 for w in writes if is_ledger(w.path)),
                       "requests": self.server.requests(mark, reads=False)})
        return result

    def site_tree(self) -> dict[str, bytes]:
        """What a deploy sends: the site but its dot-files and the builds' report (status.json,
        which stays on the build host)."""
        return {str(p.relative_to(self.site)): p.read_bytes() for p in self.site.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(self.site).parts)
                and str(p.relative_to(self.site)) != "status.json"}

    def tiles(self) -> list[str]:
        """The fallback tiles' z/x/y.png paths, the same for every frame."""
        return sorted({"/".join(p.split("/")[3:]) for p in self.site_tree() if p.startswith("radar/tiles/")})


def deploy_watched(project: Project, *extra: str, replaced: set[str] = frozenset()) -> dict:
    """A deploy with a reader polling throughout; the reader must see nothing missing or
    torn (on a server that tears, nothing but the `replaced` files in their instant)."""
    reader = Reader(project.server, tiles=project.tiles())
    reader.start()
    try:
        result = project.run_deploy(*extra)
    finally:
        reader.finish()
    print(f"{project.server.kind}: reader {reader.summary()}")
    assert not reader.verdict(project.server, replaced)
    assert reader.rounds > 0
    result["reader"] = reader
    return result


def frames_of(site: Path) -> set[str]:
    manifest = json.loads((site / "radar" / "manifest.json").read_text())
    return {"radar/" + f["url"] for f in manifest["frames"]}


def fallback_folder(site: Path, frame: str) -> str:
    """The folder of the fallback tiles of the frame whose file is `frame`, as the player
    finds it: the manifest's template for that frame."""
    manifest = json.loads((site / "radar" / "manifest.json").read_text())
    index = next(i for i, f in enumerate(manifest["frames"]) if "radar/" + f["url"] == frame)
    return "radar/" + manifest["fallback"]["templates"][index].split("{z}")[0]


def without_ledger(tree: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in tree.items() if not is_ledger(k)}


def assert_writes_are(result: dict, server, paths: set[str], site: dict[str, bytes]) -> None:
    """The server wrote each of `paths` once and nothing else (the ledger aside), and as
    many bytes as those files hold where it logs them."""
    writes = result["writes"]
    named = [w.path for w in writes if w.path is not None]
    assert len(named) == len(set(named)), f"a file written twice: {sorted(named)}"
    assert len(writes) == len(paths), f"{len(writes)} writes for {len(paths)} changed files: {sorted(named)}"
    assert set(named) <= paths, sorted(set(named) - paths)
    sized = [w for w in writes if w.op == "put" and w.bytes is not None]
    assert sum(w.bytes for w in sized) == sum(len(site[w.path]) for w in sized)


def test_deploy_move_and_unchanged(server, tmp_path):
    """Cold deploy, a one-frame window move, an unchanged redeploy, a reader polling
    throughout: each deploy writes exactly the files whose bytes changed at their path, and
    the unchanged one writes nothing (the listing and ledger recognise what is there)."""
    project = Project(tmp_path, server)
    project.build(T0)
    first = deploy_watched(project)
    site0 = project.site_tree()
    assert first["uploaded"] == len(site0) and first["unchanged"] == 0
    assert without_ledger(server.tree()) == site0
    assert LEDGER in server.tree(), "the ledger sits where every server lists it"
    assert_writes_are(first, server, set(site0), site0)
    old_frames = frames_of(project.site)

    project.build(T1)
    site1 = project.site_tree()
    changed = {p for p, b in site1.items() if site0.get(p) != b}
    moved = deploy_watched(project, replaced=changed & set(site0))
    new_frames = frames_of(project.site)
    # Frames and their fallback tiles are named by their content: the frames that stay in
    # the window keep their names, and the move brings in one new name.
    fresh = new_frames - old_frames
    assert len(fresh) == 1 and len(old_frames & new_frames) == len(old_frames) - 1 == len(new_frames) - 1, (old_frames, new_frames)
    (frame,) = fresh
    folder = fallback_folder(project.site, frame)
    tiles = {p for p in site1 if p.startswith(folder)}
    assert tiles and not [p for p in site0 if p.startswith(folder)], "a new frame's tiles are in a folder of their own"
    # What a deploy must send after a one-step move, and all the server may write: the new
    # frame and its tiles, the animation's manifest, and whichever of the site's manifest,
    # pages and the poster (the newest frame's still) changed; no other frame, no other tile.
    assert {frame, "radar/manifest.json"} | tiles <= changed
    assert changed - {frame} - tiles <= {"manifest.json", "radar/manifest.json", "radar/poster.png"} | {p for p in site1 if p.endswith(".html")}
    assert moved["uploaded"] == len(changed) and moved["copied"] == 0, moved["stderr"]
    assert moved["waves"][1][0] == 1 + len(tiles), moved["stderr"]
    assert_writes_are(moved, server, changed, site1)
    frames_sent = {w.path for w in moved["writes"] if w.path in new_frames}
    assert frames_sent == {frame}
    print(f"{server.kind} moved window: {len(moved['writes'])} files written ({moved['copied']} copied on the server), "
          f"{sum(len(site1[w.path]) for w in moved['writes'] if w.op == 'put' and w.path)} bytes uploaded, "
          f"{len(frames_sent)} of {len(new_frames)} frames, {moved['requests']} requests logged")
    assert moved["deleted"] == 0 and moved["pending"] == len(set(site0) - set(site1)) >= 1
    tree = without_ledger(server.tree())
    assert {p: tree.get(p) for p in site1} == site1
    assert (old_frames - new_frames) <= set(tree), "the frame that left the window is kept for the grace period"

    again = project.run_deploy()
    assert again["uploaded"] == 0 and again["copied"] == 0 and again["unchanged"] == len(site1)
    assert again["writes"] == [] and again["ledger_writes"] == 0, again["writes"]
    assert "uploading" not in again["stderr"]
    if server.kind == "sftp":
        # No shell command ever ran over SSH: no md5sum per file, no shell probe.
        assert server.commands() == 0


def test_killed_deploy_converges(server, tmp_path):
    """A live site; a moved window's deploy SIGKILLed (its whole process group) while it
    uploads over a slow link, then an ordinary rerun, a reader polling through both: the
    reader never sees a file missing or torn, and the target ends holding the new site,
    the old files in their grace period, and nothing a killed upload left behind."""
    project = Project(tmp_path, server)
    project.build(T0)
    project.run_deploy()
    site0 = project.site_tree()
    project.build(T1)
    site1 = project.site_tree()
    project.write(rclone_flags=["--bwlimit=20k", "--transfers=1"])
    reader = Reader(server, tiles=project.tiles())
    reader.start()
    try:
        mark = server.mark()
        proc = subprocess.Popen([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=server.env(),
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("uploading "):
                break
        # Killed mid-upload: once the server has written a first file of this deploy (an
        # event, not a second that a loaded machine may spend before the first byte).
        while not server.writes(mark) and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the deploy ended before it could be killed:\n" + "".join(seen)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        assert any(line.startswith("uploading ") for line in seen), "".join(seen)
        # A server finishes what a dead client had asked of it (a server-side COPY runs on):
        # the rerun comes once it has stopped writing, as a cron job's next run would.
        settle(server)
        partial = without_ledger(server.tree())
        assert {p: partial.get(p) for p in site1} != site1, "the kill came too late to test anything"
        project.deploy.pop("rclone_flags")
        rerun = project.run_deploy()
    finally:
        reader.finish()
    print(f"{server.kind} killed and rerun: reader {reader.summary()}; rerun: {rerun['stderr'].splitlines()[-1]}")
    assert not reader.verdict(server, {p for p in site1 if site0.get(p, site1[p]) != site1[p]})
    tree = without_ledger(server.tree())
    assert {p: tree.get(p) for p in site1} == site1
    rest = {p: b for p, b in tree.items() if p not in site1}
    assert not [p for p in rest if PARTIAL.search(p) or STAGING.match(p)], f"{sorted(rest)}\n{rerun['stderr']}"
    assert rest == {p: site0[p] for p in rest}, "only the old site's files, in their grace period, are left"


def settle(server) -> None:
    """Waits until the server has finished what a killed client had asked of it: until no
    connection to the server's port is left whose other end no live process holds (the
    killed client's; the reader's are this process's own). An event, not a quiet spell of
    seconds that a loaded machine can make the server outlast."""
    while True:
        lines = [line.split() for line in subprocess.run(["ss", "-tanpH"], capture_output=True, text=True,
                                                         check=True).stdout.splitlines()]
        owned = {cols[3] for cols in lines if len(cols) > 5 and "pid=" in cols[5]}
        orphaned = [cols for cols in lines if len(cols) > 4 and cols[0] not in ("LISTEN", "TIME-WAIT")
                    and cols[3] == f"127.0.0.1:{server.port}" and cols[4] not in owned]
        if not orphaned:
            return
        time.sleep(0.1)


def test_grace_zero_deletes_and_cap(server, tmp_path):
    """Deletes on every target: past the grace period, at most max_deletes a run, then the
    folders they emptied."""
    project = Project(tmp_path, server, grace="PT0S", max_deletes=1)
    project.build(T0)
    project.run_deploy()
    project.build(T5)  # the window moved 5 steps: 3 of its 4 frames (and more) left
    moved = project.run_deploy()
    assert moved["deleted"] == 1 and moved["held"] >= 1
    assert "max_deletes (1) reached" in moved["stderr"]
    project.write(max_deletes=1000)
    rest = project.run_deploy()
    assert rest["deleted"] == moved["held"] and rest["uploaded"] == 0
    assert without_ledger(server.tree()) == project.site_tree()
    if server.root is not None:
        # Folders emptied by the deletes go too.
        site_root = getattr(server, "site_root", server.root)
        assert not [d for d in site_root.rglob("*") if d.is_dir() and not any(d.iterdir())]


def test_missing_folder_or_bucket(server, tmp_path):
    """A target folder or bucket that does not exist is a config error (exit 2) naming
    deploy.target, not a new site made somewhere a typo points; deploy.create makes it."""
    if isinstance(server, S3Server):
        target = f"{server.remote}:no-such-bucket/www"
    elif server.kind == "sftp":
        target = f"{server.remote}:{server.root}/no-such-folder"
    else:
        target = f"{server.remote}:no-such-folder"
    project = Project(tmp_path, server, target=target)
    project.build(T0)
    err = project.run_deploy(expect=2)["stderr"]
    assert "deploy.target" in err and "does not exist" in err and "deploy.create: true" in err, err
    project.write(create=True)
    first = project.run_deploy()
    assert first["uploaded"] == len(project.site_tree())
    assert project.run_deploy()["uploaded"] == 0


def test_ledger_moves_from_its_old_name(s3, tmp_path):
    """A target deployed by an older matsite keeps its ledger as .matsite-deploy.json: it is
    read, written under the new name, and deleted; nothing is sent again."""
    project = Project(tmp_path, s3)
    project.build(T0)
    project.run_deploy()
    client, key = s3.client(), f"{s3.prefix}/{LEDGER}"
    client.copy_object(Bucket=s3.bucket, Key=f"{s3.prefix}/.matsite-deploy.json", CopySource={"Bucket": s3.bucket, "Key": key})
    client.delete_object(Bucket=s3.bucket, Key=key)
    again = project.run_deploy()
    assert again["uploaded"] == 0 and again["unchanged"] == len(project.site_tree())
    tree = s3.tree()
    assert LEDGER in tree and ".matsite-deploy.json" not in tree
    assert project.run_deploy()["ledger_writes"] == 0


def test_s3_headers(s3, tmp_path):
    """Headers by wave, on frames kept through a window move and new ones, their fallback
    tiles (named by content: immutable like the frames); WebP frames and their WebP poster."""
    project = Project(tmp_path, s3, animation_extra="    format: webp-lossless\n")
    project.build(T0)
    project.run_deploy()
    old_frames = frames_of(project.site)
    project.build(T1)
    assert project.run_deploy()["copied"] == 0
    client = s3.client()
    frames = frames_of(project.site)
    kept, new = sorted(frames & old_frames)[0], sorted(frames - old_frames)[0]
    tile = next(p for p in project.site_tree() if p.startswith(fallback_folder(project.site, new)))
    expected = {
        kept: ("image/webp", "public, max-age=31536000, immutable"),
        new: ("image/webp", "public, max-age=31536000, immutable"),
        tile: ("image/png", "public, max-age=31536000, immutable"),
        "radar/manifest.json": ("application/json", "no-cache"),
        "manifest.json": ("application/json", "no-cache"),
        "radar/index.html": ("text/html; charset=utf-8", "no-cache"),
        "radar/poster.webp": ("image/webp", "no-cache"),
    }
    js = next(p for p in project.site_tree() if p.startswith("assets/player-bundle.") and p.endswith(".js"))
    expected[js] = ("text/javascript; charset=utf-8", "public, max-age=31536000, immutable")
    for path, (kind, cache) in expected.items():
        head = client.head_object(Bucket=s3.bucket, Key="www/" + path)
        assert (head["ContentType"], head.get("CacheControl")) == (kind, cache), path


def test_dry_run_changes_nothing(s3, tmp_path):
    project = Project(tmp_path, s3, grace="PT0S")
    project.build(T0)
    project.run_deploy()
    before = s3.tree()
    project.build(T1)
    plan = project.run_deploy("--dry-run")
    assert plan["uploaded"] >= 1 and plan["deleted"] >= 1
    assert re.search(r"upload radar/frames/\S+\.png", plan["stderr"])
    assert re.search(r"delete radar/frames/", plan["stderr"])
    assert s3.tree() == before and plan["writes"] == []


def test_usage_errors(sftp, tmp_path):
    project = Project(tmp_path, sftp)
    project.build(T0)
    no_rclone = Project(tmp_path, sftp, rclone="/nonexistent/rclone")
    err = no_rclone.run_deploy(expect=2)["stderr"]
    assert "deploy.rclone" in err and "not found" in err
    (tmp_path / "matsite.yml").write_text(CONFIG.split("{animation_extra}deploy:")[0].format(minutes=30))
    proc = subprocess.run([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2 and "deploy.target" in proc.stderr


def test_wrong_targets_fail_fast(tmp_path):
    """A closed port and a host that takes no connection, over SFTP, S3 and WebDAV: each
    deploy fails (exit 1) within 30 s more than a deploy to a local folder takes beside
    it (the machine's own pace, so a loaded machine moves both), saying which step
    failed, with no secret of the target in its output; the SFTP one says once that no
    host key is checked."""
    dead = DeadHost()
    closed = DeadHost()
    closed_port = closed.port
    closed.close()
    secret = "hunter2-S3CRET-value"
    # rclone takes an SFTP password only obscured (`rclone obscure`): that is what must not show.
    obscured = subprocess.run([rclone_binary(), "obscure", secret], capture_output=True, text=True, check=True).stdout.strip()
    targets = {}
    for name, port in (("closed", closed_port), ("dead", dead.port)):
        targets[f"sftp {name}"] = f":sftp,host=127.0.0.1,port={port},user=web,pass={obscured}:/srv/www"
        targets[f"s3 {name}"] = (f":s3,provider=Other,endpoint='http://127.0.0.1:{port}',access_key_id=AKIAEXAMPLE,"
                                 f"secret_access_key={secret}:site/www")
        targets[f"webdav {name}"] = f":webdav,url='http://web:{secret}@127.0.0.1:{port}/',vendor=other:www"
    site = Project(tmp_path, Inline())
    site.build(T0)
    results = {}

    def attempt(label: str, target: str) -> None:
        folder = tmp_path / label.replace(" ", "-")
        folder.mkdir()
        (folder / "matsite.yml").write_text(CONFIG.format(minutes=30, animation_extra="", deploy=f"  target: {json.dumps(target)}"))
        started = time.monotonic()
        proc = subprocess.run([BIN, "deploy", "-c", "matsite.yml", "--output", str(site.site)], cwd=folder, env=base_env(),
                              capture_output=True, text=True, timeout=300)
        results[label] = (proc.returncode, time.monotonic() - started, proc.stderr)

    # The control: the same deploy to a folder, which answers at once, run in the same batch.
    targets["control"] = str(tmp_path / "control-target")
    (tmp_path / "control-target").mkdir()
    threads = [threading.Thread(target=attempt, args=item) for item in targets.items()]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        dead.close()
    control_code, control_seconds, control_err = results.pop("control")
    print(f"control (a folder): exit {control_code} after {control_seconds:.1f} s")
    assert control_code == 0, control_err
    for label, (code, seconds, err) in sorted(results.items()):
        print(f"{label}: exit {code} after {seconds:.1f} s")
        assert code == 1, f"{label}: {err}"
        assert seconds < control_seconds + 30, f"{label}: {seconds:.1f} s (a folder: {control_seconds:.1f} s)\n{err}"
        assert "failed while listing the target" in err, f"{label}: {err}"
        assert secret not in err and obscured not in err and "AKIAEXAMPLE" not in err, f"{label}: {err}"
    for name in ("closed", "dead"):
        assert results[f"sftp {name}"][2].count("note: rclone does not check this SFTP server's host key") == 1


class Inline:
    """No server: a project whose deploy target is written inline."""
    kind = "inline"

    def target(self) -> str:
        return "unused:"


def test_secrets_never_shown(s3, tmp_path):
    """Hostile spellings of a target holding a secret: refused before rclone runs when
    rclone would misread it (the quoted spelling shown, masked); deployed with rclone at
    -vv, dumping its request headers, and failing on a wrong bucket: the secret never shows."""
    secret = "hunter2-S3CRET-value"
    project = Project(tmp_path, s3)
    project.build(T0)
    unquoted = (f":s3,provider=Other,endpoint=http://127.0.0.1:{s3.port},access_key_id=AKIAEXAMPLE,"
                f"secret_access_key={secret}:site/www")
    project.write(target=unquoted)
    mark = s3.mark()
    err = project.run_deploy(expect=2)["stderr"]
    assert "deploy.target" in err and f"endpoint='http://127.0.0.1:{s3.port}',access_key_id=***,secret_access_key=***:site/www" in err, err
    assert secret not in err and "AKIAEXAMPLE" not in err
    assert s3.requests(mark) == 0, "a misread target is refused before any request"
    quoted = (f":s3,provider=Other,endpoint='http://127.0.0.1:{s3.port}',access_key_id=AKIAEXAMPLE,"
              f"secret_access_key=\"{secret}\",region=us-east-1:site/www")
    project.write(target=quoted, rclone_flags=["-vv", "--dump=headers"])
    done = project.run_deploy()
    assert done["uploaded"] == len(project.site_tree())
    assert "Authorization: ***" in done["stderr"] or "authorization: ***" in done["stderr"].lower(), done["stderr"][-3000:]
    assert secret not in done["stderr"] and "AKIAEXAMPLE" not in done["stderr"]
    project.write(target=quoted.replace("site/www", "no-such-bucket/www"), rclone_flags=["-vv"])
    failed = project.run_deploy(expect=2)["stderr"]
    assert secret not in failed and "AKIAEXAMPLE" not in failed and "secret_access_key=***" in failed, failed


def test_build_during_deploy(s3, tmp_path):
    """A build that publishes while a deploy is sending: the deploy sends the site it
    snapshotted, whole, and leaves no snapshot behind; the next deploy sends the new one."""
    project = Project(tmp_path, s3, rclone_flags=["--bwlimit=100k", "--transfers=1"])
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
    assert without_ledger(s3.tree()) == site0
    assert not list(tmp_path.glob(".site.matsite-deploy-*"))
    project.deploy.pop("rclone_flags")
    project.run_deploy()
    tree, site1 = s3.tree(), project.site_tree()
    assert {p: tree.get(p) for p in site1} == site1


SECRET = "tok-9f8e7d6c5b4a-SECRET"


def leaks(secret: str, *texts) -> list[str]:
    """Where `secret` shows: in any of `texts` (strings, or trees path -> bytes)."""
    found = []
    for i, text in enumerate(texts):
        if isinstance(text, dict):
            found += [f"file {p}" for p, b in text.items() if secret.encode() in b or secret in p]
        elif secret in text:
            found.append(f"text {i}: ...{text[max(0, text.index(secret) - 200):text.index(secret) + 50]}...")
    return found


def deploy_capturing(project: Project, env: dict | None = None) -> subprocess.CompletedProcess:
    project.write()
    return subprocess.run([BIN, "deploy", "-c", "matsite.yml"], cwd=project.folder, env=env or project.server.env(),
                          capture_output=True, text=True, timeout=600)


def test_secret_flags_in_every_spelling(nginx_dav, tmp_path):
    """A secret given to rclone in any spelling (a flag and its value as two list items, a
    header flag, --webdav-headers, a headers= parameter inside the target, with rclone at
    -vv printing its arguments and the headers it found) shows nowhere: not in stdout or
    stderr, not on the server, not in the site. Harmless values (--transfers 8) are taken
    as two items and stay visible."""
    server = nginx_dav
    project = Project(tmp_path, server)
    project.build(T0)
    inline = f":webdav,url='http://127.0.0.1:{server.port}/',vendor=other"
    spellings = {
        "header as two items": {"rclone_flags": ["-vv", "--header", f"Authorization: Bearer {SECRET}", "--transfers", "8"]},
        "header-upload in one": {"rclone_flags": ["-vv", f"--header-upload=Cookie: session={SECRET}"]},
        "webdav-headers as two items": {"rclone_flags": ["-vv", "--webdav-headers", f"Authorization,Bearer {SECRET}"]},
        "webdav-headers in one": {"rclone_flags": ["-vv", f"--webdav-headers=X-Api-Key,{SECRET}"]},
        "secret flag as two items": {"rclone_flags": ["-vv", "--webdav-pass", SECRET]},
        "headers= in the target": {"target": f"{inline},headers='Authorization,Bearer {SECRET}':www", "rclone_flags": ["-vv"]},
    }
    closed = DeadHost()
    closed_port = closed.port
    closed.close()
    times = ["2026-11-21T12:10:00Z", "2026-11-21T12:20:00Z", "2026-11-21T12:30:00Z", "2026-11-21T12:40:00Z", "2026-11-21T12:50:00Z"]
    for number, (label, changes) in enumerate(spellings.items()):
        # Each deploy has something to send: rclone runs its uploads at -vv.
        if number:
            project.build(times[number - 1])
        project.deploy = {"target": server.target(), **changes}
        if label == "secret flag as two items":
            # rclone takes a WebDAV password obscured: that is the value given, and what must not show.
            obscured = subprocess.run([rclone_binary(), "obscure", SECRET], capture_output=True, text=True, check=True).stdout.strip()
            project.deploy["rclone_flags"] = ["-vv", "--webdav-pass", obscured]
            secret = obscured
        else:
            secret = SECRET
        proc = deploy_capturing(project)
        assert proc.returncode == 0, f"{label}: {proc.stderr[-3000:]}"
        assert "DEBUG" in proc.stderr, "rclone ran at -vv"
        found = leaks(secret, proc.stdout, proc.stderr, server.tree(), project.site_tree())
        assert not found, f"{label}: {found}"
        if label == "header as two items":
            assert "--transfers" in proc.stderr and '"8"' in proc.stderr, "a harmless value stays visible"
        if label == "headers= in the target":
            assert "headers='Authorization,***'" in proc.stderr, proc.stderr[:2000]
        # And failing: rclone's last lines (at -vv) in the error, the server gone.
        project.deploy["target"] = project.deploy["target"].replace(f"127.0.0.1:{server.port}", f"127.0.0.1:{closed_port}")
        env = server.env()
        env["RCLONE_CONFIG_W_URL"] = f"http://127.0.0.1:{closed_port}/"
        failed = deploy_capturing(project, env=env)
        assert failed.returncode == 1, failed.stderr
        assert not leaks(secret, failed.stdout, failed.stderr), f"{label}: {leaks(secret, failed.stdout, failed.stderr)}"
        print(f"{label}: deployed and failed, the secret nowhere")


def test_rclone_flags_refused_without_echo(sftp, tmp_path):
    """rclone_flags written as a string, or with an item that is neither a flag nor a flag's
    value: a config error (exit 2) naming the key and line, never showing what was written."""
    project = Project(tmp_path, sftp)
    project.build(T0)
    for flags in (f"--s3-secret-access-key {SECRET}", [SECRET, "--transfers=8"], ["--bwlimit=1M", SECRET]):
        project.write(rclone_flags=flags)
        proc = deploy_capturing(project)
        assert proc.returncode == 2, proc.stderr
        assert "deploy.rclone_flags" in proc.stderr and "matsite.yml:" in proc.stderr, proc.stderr
        assert not leaks(SECRET, proc.stdout, proc.stderr), proc.stderr


def test_two_item_flags_and_unknown_remote(sftp, tmp_path):
    """`["--transfers", "8"]` is taken as docs/deploy.md shows it; a remote rclone does not
    know is a config error (exit 2) saying how to define it."""
    project = Project(tmp_path, sftp, rclone_flags=["--transfers", "8", "--checkers", "4"])
    project.build(T0)
    assert project.run_deploy()["uploaded"] == len(project.site_tree())
    project.write(target="nosuchremote:www", rclone_flags=None)
    err = project.run_deploy(expect=2)["stderr"]
    assert "deploy.target" in err and 'no remote named "nosuchremote"' in err and "RCLONE_CONFIG_NOSUCHREMOTE_TYPE" in err, err


FAULTS = {
    # Stops answering at the first upload: connections held open, nothing passes.
    "hangs at the first upload": ("freeze", 0),
    # The port closes (open connections reset) at the first upload, and after some uploads.
    "closes at the first upload": ("close", 0),
    "closes after some uploads": ("close", 6000),
}


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("kind", ["sftp", "webdav-nginx", "s3"])
def test_server_gone_mid_deploy(kind, fault, tmp_path):
    """A live site; the server goes away in the middle of a moved window's deploy (through
    a proxy the test freezes or closes): the deploy stops at rclone's first failed
    connection, exit 1, saying so; readers (reading the server directly) see the old site
    whole throughout; once the server is back, a plain rerun converges."""
    from conftest import start
    server = start(kind, tmp_path)
    proxy = None
    try:
        project = Project(tmp_path, server)
        project.build(T0)
        project.run_deploy()
        project.build(T1)
        site1 = project.site_tree()
        proxy = FaultProxy(server.port)
        project.write(rclone_flags=["--bwlimit=40k", "--transfers=1"])
        reader = Reader(server, tiles=project.tiles())
        reader.start()
        try:
            proc = subprocess.Popen([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=proxy.env(server),
                                    stderr=subprocess.PIPE, text=True)
            seen = []
            for line in proc.stderr:
                seen.append(line)
                if line.startswith("uploading "):
                    break
            mode, after = FAULTS[fault]
            proxy.arm(mode, after=after)
            _, rest = proc.communicate(timeout=600)
            ended = time.monotonic()
        finally:
            reader.finish()
        err = "".join(seen) + rest
        assert proxy.faulted.is_set(), f"the deploy ended before the fault came:\n{err}"
        print(f"{kind}, {fault}: exit {proc.returncode} {ended - proxy.fault_at:.1f} s after the fault; reader {reader.summary()}")
        assert proc.returncode == 1, err
        assert "the server refused, dropped or stopped answering a connection" in err, err
        assert not reader.verdict(server)
        proxy.stop()
        project.deploy.pop("rclone_flags")
        rerun = project.run_deploy()
        assert rerun["uploaded"] >= 1
        tree = without_ledger(server.tree())
        assert {p: tree.get(p) for p in site1} == site1
    finally:
        if proxy:
            proxy.stop()
        server.stop()


class Mount:
    """A small tmpfs mounted at `folder` (root only), unmounted by close(): a disk that
    fills up, or (`read_only()`) a folder no server may write."""

    def __init__(self, folder: Path, size: str):
        folder.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"this test mounts a small tmpfs (a full disk, a read-only folder) and needs root: {proc.stderr}")
        self.folder = folder

    def read_only(self) -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(self.folder)], check=True)

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.folder)], check=False)


def test_refusals_named(sftp, nginx_dav, tmp_path):
    """Errors that name what the server refused and the fix: an SFTP server whose disk is
    full (SSH_FX_FAILURE), nginx WebDAV over a read-only folder (500, its status line kept),
    `rclone serve webdav --read-only` (409 or 404)."""
    from servers import RcloneDAV

    full = Mount(sftp.root / "full", "48k")
    try:
        (tmp_path / "p-sftp").mkdir()
        project = Project(tmp_path / "p-sftp", sftp, target=f"{sftp.remote}:{sftp.root}/full")
        project.build(T0)
        err = project.run_deploy(expect=1)["stderr"]
        assert "SSH_FX_FAILURE" in err and "disk is full" in err and "free space on the server" in err, err
    finally:
        full.close()

    ro = Mount(nginx_dav.root / "ro", "1m")
    try:
        ro.read_only()
        (tmp_path / "p-nginx").mkdir()
        project = Project(tmp_path / "p-nginx", nginx_dav, target=f"{nginx_dav.remote}:ro")
        project.build(T0)
        err = project.run_deploy(expect=1)["stderr"]
        assert "500 Internal Server Error" in err and "may not write the target folder" in err, err
    finally:
        ro.close()

    class ReadOnlyDAV(RcloneDAV):
        flags = ("--read-only",)

    (tmp_path / "ro-dav").mkdir()
    server = ReadOnlyDAV(tmp_path / "ro-dav")
    try:
        (tmp_path / "p-rclone").mkdir()
        project = Project(tmp_path / "p-rclone", server)
        project.build(T0)
        err = project.run_deploy(expect=1)["stderr"]
        # rclone 1.75's read-only server answers a PUT 409 (the issue saw 404 from an older one).
        assert ("404 Not Found" in err or "409 Conflict" in err) and "--read-only" in err and "serve the folder writable" in err, err
    finally:
        server.stop()


def test_old_ledger_read_by_name_on_nginx(nginx_dav, tmp_path):
    """A target an older matsite deployed keeps its ledger as .matsite-deploy.json, which
    nginx's WebDAV leaves out of its listings: it is read by name (nothing sent again),
    written under the new name, and the old one deleted."""
    project = Project(tmp_path, nginx_dav)
    project.build(T0)
    project.run_deploy()
    root = nginx_dav.site_root
    journal = root / "matsite-deploy"
    assert not journal.exists() or not any(journal.iterdir()), "a cold deploy writes a base only"
    (root / LEDGER).rename(root / ".matsite-deploy.json")
    again = project.run_deploy()
    assert again["uploaded"] == 0 and again["unchanged"] == len(project.site_tree()), again["stderr"]
    assert (root / LEDGER).exists() and not (root / ".matsite-deploy.json").exists()
    assert project.run_deploy()["ledger_writes"] == 0


def test_late_failure_keeps_what_landed(s3, tmp_path):
    """A cold deploy whose server goes away after the content-hashed files landed: the
    rerun does not send them again (what landed was recorded as it landed)."""
    # 17 frames with their levels: more content-hashed files than deploy sends before
    # recording them (100).
    project = Project(tmp_path, s3, minutes=160, animation_extra="    pyramid: { publish: always }\n")
    project.build(T5)
    site = project.site_tree()
    hashed = [p for p in site if "/frames/" in p or "/tiles/" in p or p.startswith("assets/")]
    assert len(hashed) > 100, len(hashed)
    proxy = FaultProxy(s3.port)
    try:
        project.write(rclone_flags=["--bwlimit=200k"])
        proc = subprocess.Popen([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=proxy.env(s3), stderr=subprocess.PIPE, text=True)
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("uploading manifests"):
                break
        proxy.arm("close")
        _, rest = proc.communicate(timeout=600)
        assert proc.returncode == 1, "".join(seen) + rest
    finally:
        proxy.stop()
    project.deploy.pop("rclone_flags")
    rerun = project.run_deploy()
    assert rerun["waves"].get(1, (0,))[0] == 0, rerun["stderr"]
    assert rerun["uploaded"] < len(site) - len(hashed) + 1, rerun["stderr"]
    assert without_ledger(s3.tree()) == site


def test_moves_write_a_journal_not_the_ledger(server, tmp_path):
    """Moved windows write the ledger's change (a journal entry or two of a few KB), not the
    whole ledger, and the next deploy reads it back: an unchanged redeploy sends nothing."""
    project = Project(tmp_path, server)
    project.build(T0)
    cold = project.run_deploy()
    base = len(server.tree()[LEDGER])
    times = ["2026-11-21T12:10:00Z", "2026-11-21T12:20:00Z", "2026-11-21T12:30:00Z"]
    for at in times:
        project.build(at)
        moved = project.run_deploy()
        changed = sum(len(project.site_tree()[w.path]) for w in moved["writes"] if w.path in project.site_tree())
        print(f"{server.kind} move to {at}: {moved['uploaded']} files, {changed} bytes; ledger: {moved['ledger_writes']} writes, "
              f"{moved['ledger_bytes']} bytes (base {base} bytes)")
        assert moved["ledger_writes"] <= 3, moved["stderr"]
        if moved["ledger_bytes"]:
            assert moved["ledger_bytes"] < base / 2
    again = project.run_deploy()
    assert again["uploaded"] == 0 and again["ledger_writes"] == 0, again["stderr"]
    assert cold["ledger_writes"] >= 1


def test_failed_ledger_write_keeps_the_live_ledger(nginx_dav, tmp_path):
    """On nginx WebDAV, where rclone deletes a file whose upload failed: moves until the
    journal is compacted into a new base, whose upload the server refuses (507). The live
    base stays as it was (no DELETE of it), and once the server takes writes again the
    rerun sends at most that move's files, not the site."""
    server = nginx_dav
    project = Project(tmp_path, server)
    project.build(T0)
    project.run_deploy()
    live = server.site_root / LEDGER
    server.refuse_ledger_base()
    failed = None
    for at in ["2026-11-21T12:10:00Z", "2026-11-21T12:20:00Z", "2026-11-21T12:30:00Z", "2026-11-21T12:40:00Z", T5]:
        project.build(at)
        before = live.read_bytes()
        mark = server.mark()
        result = subprocess.run([BIN, "deploy", "-c", "matsite.yml"], cwd=tmp_path, env=server.env(), capture_output=True, text=True)
        if result.returncode != 0:
            failed = (result, before, mark)
            break
    assert failed, "no move compacted the journal into a new base"
    result, before, mark = failed
    assert result.returncode == 1 and "matsite-deploy.json" in result.stderr and "507" in result.stderr, result.stderr
    assert live.read_bytes() == before, "the live ledger is untouched"
    deletes = [line for line in server.log_lines()[mark:] if line.startswith("DELETE") and f"/{LEDGER}" in line and "staging" not in line]
    assert not deletes, deletes
    server.refuse_ledger_base(False)
    rerun = project.run_deploy()
    site = project.site_tree()
    assert rerun["uploaded"] <= 12 and rerun["unchanged"] >= len(site) - 12, rerun["stderr"]
    assert live.read_bytes() != before
