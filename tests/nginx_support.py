"""Debian's nginx for the tests, running the site of `deploy/nginx.conf` itself.

The example is what is tested: the site file is read from the repository and only what must
differ on a test machine is substituted (its ports on loopback, the upstream servers' ports, a
certificate made for the test, no IPv6 listen), each substitution checked so that a reshaped
example fails here instead of being tested halfway. Around it goes a main configuration of the
test's own: no daemon, its pid, logs and temporary folders in the test's folder (`-p`, `-c`,
`-e`), so nothing of the machine's nginx (its service, /etc/nginx, /var/log/nginx) is used.
nginx runs in a process group of its own, which `stop` ends with its worker processes.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from live_server import free_port
from processes import end_group, group

NGINX = "/usr/sbin/nginx"  # Debian's package (scripts/services installs it)
SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"
#: The example's upstream servers, in order, as deploy/nginx.conf names them.
EXAMPLE_UPSTREAMS = ("127.0.0.1:8001", "127.0.0.1:8002")


def _substitute(text: str, pattern: str, replacement: str, count: int) -> str:
    """`text` with `pattern` replaced, which must occur exactly `count` times."""
    new, found = re.subn(pattern, replacement, text, flags=re.MULTILINE)
    if found != count:
        raise AssertionError(f"deploy/nginx.conf: {pattern!r} found {found} times, not {count}")
    return new


def site_for_test(
    site: str, *, http_port: int, https_port: int, upstreams: tuple[int, int], cert: Path, key: Path
) -> str:
    """deploy/nginx.conf with this machine's ports and certificate."""
    site = _substitute(site, r"^\s*listen \[::\]:\d+[^;]*;\n", "", 2)  # loopback IPv4 only
    site = _substitute(site, r"listen 80;", f"listen 127.0.0.1:{http_port};", 1)
    site = _substitute(site, r"listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;", 1)
    site = _substitute(site, r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};", 1)
    site = _substitute(site, r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", 1)
    for example, port in zip(EXAMPLE_UPSTREAMS, upstreams, strict=True):
        # In both upstreams: every request's, and the game sockets' (by a hash of the path).
        site = _substitute(site, rf"server {re.escape(example)};", f"server 127.0.0.1:{port};", 2)
    return site


def main_config(site: str, folder: Path) -> str:
    """A whole nginx.conf around `site`: everything nginx writes goes under `folder`."""
    # As root, nginx's workers would run as nobody, who cannot enter the test's folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    return f"""daemon off;
{user}worker_processes 2;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} info;
events {{
    worker_connections 256;
}}
http {{
    access_log {folder / "access.log"};
{temp}
    uwsgi_temp_path {folder / "uwsgi"};
    scgi_temp_path {folder / "scgi"};

{site}
}}
"""


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with openssl."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt"),
            *("ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@dataclass
class Nginx:
    """nginx in front of two upstream ports, on a free http and a free https port."""

    folder: Path
    upstreams: tuple[int, int]
    http_port: int = field(default_factory=free_port)
    https_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def cert(self) -> Path:
        return self.folder / "cert.pem"

    @property
    def https_url(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def start(self, timeout: float = 20.0) -> Nginx:
        cert, key = self_signed(self.folder)
        site = site_for_test(
            SITE.read_text(encoding="utf-8"),
            http_port=self.http_port,
            https_port=self.https_port,
            upstreams=self.upstreams,
            cert=cert,
            key=key,
        )
        config = self.folder / "nginx.conf"
        config.write_text(main_config(site, self.folder), encoding="utf-8")
        command = [NGINX, "-p", str(self.folder), "-c", str(config), "-e", str(self.folder / "e")]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stderr
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, workers included
        )
        deadline = time.monotonic() + timeout
        for port in (self.http_port, self.https_port):
            while not _accepts(port):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"nginx did not start: {self.error_log()}")
                time.sleep(0.02)  # readiness poll, not a timing assumption
        return self

    def stop(self) -> None:
        """Stop nginx (SIGTERM: its fast shutdown), then end its whole process group."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.wait(timeout=15)
        finally:
            end_group(process.pid)
        assert group(process.pid) == [], "nginx's workers outlived it"

    def error_log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False
