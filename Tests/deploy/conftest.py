"""Fixtures for `matsite deploy` against real servers on 127.0.0.1: OpenSSH's sshd over
SFTP, moto's S3 API server, nginx's WebDAV module and `rclone serve webdav`, each on a free
port, started here and stopped after each test. A server that cannot run here fails its
tests, saying what to install: `scripts/install-deps.sh test` installs them all.
"""
from __future__ import annotations

import pytest

from servers import KINDS, missing

TARGETS = ["sftp", "webdav-nginx", "webdav-rclone", "s3"]


def start(kind: str, tmp_path):
    reason = missing(kind)
    if reason:
        pytest.fail(reason)
    folder = tmp_path / kind
    folder.mkdir()
    return KINDS[kind](folder)


@pytest.fixture(params=TARGETS)
def server(request, tmp_path):
    """A running target of every kind in turn: `.env()` for rclone, `.target()` for deploy.target."""
    srv = start(request.param, tmp_path)
    yield srv
    srv.stop()


def _one(kind):
    @pytest.fixture
    def fixture(tmp_path):
        srv = start(kind, tmp_path)
        yield srv
        srv.stop()
    return fixture


s3 = _one("s3")
sftp = _one("sftp")
nginx_dav = _one("webdav-nginx")
