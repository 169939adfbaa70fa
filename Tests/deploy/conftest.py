"""Fixtures for `matsite deploy` against real servers on 127.0.0.1: OpenSSH's sshd over
SFTP and moto's S3 API server, each on a free port, started here and stopped after each
test. The tests are skipped (with the reason) only when rclone, sshd or moto is absent;
`scripts/install-deps.sh test` installs all three.
"""
from __future__ import annotations

import importlib.util
import shutil

import pytest

from servers import SSHD, S3Server, SFTPServer


def _missing(kind: str) -> str | None:
    if shutil.which("rclone") is None:
        return "rclone is not installed (apt-get install rclone; scripts/install-deps.sh test)"
    if kind == "sftp" and (SSHD is None or shutil.which("ssh-keygen") is None):
        return "OpenSSH's sshd/ssh-keygen are not installed (apt-get install openssh-server openssh-client)"
    if kind == "s3" and (importlib.util.find_spec("moto") is None or importlib.util.find_spec("boto3") is None):
        return "moto[server] is not installed (pip install 'moto[server]')"
    return None


def _start(kind: str, tmp_path):
    reason = _missing(kind)
    if reason:
        pytest.skip(reason)
    folder = tmp_path / kind
    folder.mkdir()
    srv = SFTPServer(folder) if kind == "sftp" else S3Server(folder)
    srv.kind = kind
    return srv


@pytest.fixture(params=["sftp", "s3"])
def server(request, tmp_path):
    """A running target: `.env()` for rclone, `.target()` for deploy.target."""
    srv = _start(request.param, tmp_path)
    yield srv
    srv.stop()


@pytest.fixture
def s3(tmp_path):
    srv = _start("s3", tmp_path)
    yield srv
    srv.stop()


@pytest.fixture
def sftp(tmp_path):
    srv = _start("sftp", tmp_path)
    yield srv
    srv.stop()
