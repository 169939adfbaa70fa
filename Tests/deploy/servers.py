"""Real transfer targets on 127.0.0.1 for the deploy tests: OpenSSH's sshd (SFTP, key
authentication, its own port and config in a temp folder) and moto's S3 server. Each
starts on a free port and stops when the test is done; rclone reaches them through
RCLONE_CONFIG_* environment variables only, as a CI job would.
"""
from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, process: subprocess.Popen, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s")


def base_env() -> dict:
    env = dict(os.environ)
    # rclone 1.60's S3 client refuses any AWS_CA_BUNDLE with a plain HTTP transport, and
    # an rclone.conf of the machine's must not change what the tests reach.
    env.pop("AWS_CA_BUNDLE", None)
    env["RCLONE_CONFIG"] = "/dev/null"
    return env


class Server:
    """A server process of the tests', stopped (terminated, killed if it must be) by stop()."""

    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


class SFTPServer(Server):
    """sshd -D on 127.0.0.1:<free port>, one user key, serving `root` (a folder of the
    current user) over SFTP. The rclone remote is named `T`."""

    remote = "T"

    def __init__(self, folder: Path):
        self.folder = folder
        self.root = folder / "served"
        self.root.mkdir(parents=True)
        keys = folder / "keys"
        keys.mkdir()
        for name in ("host", "user"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
        self.key = keys / "user"
        self.port = free_port()
        config = folder / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host'}\n"
            f"AuthorizedKeysFile {keys / 'user.pub'}\nPidFile {folder / 'sshd.pid'}\n"
            "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PubkeyAuthentication yes\nUsePAM no\nSubsystem sftp internal-sftp\n")
        self.log = open(folder / "sshd.log", "wb")
        if os.geteuid() == 0:
            # sshd started by root insists on its privilege separation folder, which
            # Debian's service unit would otherwise create.
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=self.log, stderr=self.log)
        wait_port(self.port, self.process, "sshd")

    def env(self) -> dict:
        env = base_env()
        p = f"RCLONE_CONFIG_{self.remote}_"
        env.update({p + "TYPE": "sftp", p + "HOST": "127.0.0.1", p + "PORT": str(self.port),
                    p + "USER": getpass.getuser(), p + "KEY_FILE": str(self.key)})
        return env

    def target(self) -> str:
        return f"{self.remote}:{self.root}"


class S3Server(Server):
    """moto's S3 API server (`python3 -m moto.server`) on 127.0.0.1:<free port> with one
    bucket. The rclone remote is named `S`."""

    remote = "S"
    bucket = "site"

    def __init__(self, folder: Path):
        self.port = free_port()
        self.log = open(folder / "moto.log", "wb")
        env = base_env()
        self.process = subprocess.Popen(
            ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self.log, stderr=self.log, env=env)
        wait_port(self.port, self.process, "moto.server")
        self.client().create_bucket(Bucket=self.bucket)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="test",
                            aws_secret_access_key="test", region_name="us-east-1")

    def env(self) -> dict:
        env = base_env()
        p = f"RCLONE_CONFIG_{self.remote}_"
        env.update({p + "TYPE": "s3", p + "PROVIDER": "Other", p + "ENDPOINT": self.endpoint,
                    p + "ACCESS_KEY_ID": "test", p + "SECRET_ACCESS_KEY": "test", p + "REGION": "us-east-1"})
        return env

    def target(self, prefix: str = "www") -> str:
        return f"{self.remote}:{self.bucket}/{prefix}"



def remote_tree(server) -> dict[str, bytes]:
    """Every file on the target (path -> bytes), the deploy ledger included."""
    if getattr(server, "kind", "") == "sftp":
        root = server.root
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    client = server.client()
    tree = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=server.bucket, Prefix="www/"):
        for item in page.get("Contents", []):
            key = item["Key"]
            tree[key[len("www/"):]] = client.get_object(Bucket=server.bucket, Key=key)["Body"].read()
    return tree


class Fetcher:
    """Reads one target file the way a viewer's request would: the bytes, or None for a
    404. SFTP targets are read from the served folder (what a web server in front would
    serve), S3 targets over the S3 API."""

    def __init__(self, server):
        self.server = server
        self.client = server.client() if getattr(server, "kind", "") == "s3" else None

    def get(self, path: str) -> bytes | None:
        if self.client is None:
            try:
                return (self.server.root / path).read_bytes()
            except FileNotFoundError:
                return None
        try:
            return self.client.get_object(Bucket=self.server.bucket, Key="www/" + path)["Body"].read()
        except self.client.exceptions.NoSuchKey:
            return None
