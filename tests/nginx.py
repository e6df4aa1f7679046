"""Debian's nginx with the shipped config/nginx.conf, as a real process in front of an app server on this machine:
for the production layout's tests (tests/test_nginx.py) and the benchmark's "nginx + gunicorn sync" (bench/).

Only the lines the file marks SITE (the app servers' addresses, the listening ports, the certificate) change, and
any timeout a caller names; rendering fails if the file loses one of them.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.servers import free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "config" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@dataclass
class Nginx:
    http_port: int
    https_port: int
    process: subprocess.Popen
    error_log: Path


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"config/nginx.conf no longer has exactly one {old!r}"
    return text.replace(old, new)


def _certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "site.pem", folder / "site.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def site_config(upstream_port: int, http_port: int, https_port: int, cert: Path, key: Path, **timeouts: str) -> str:
    """config/nginx.conf with its SITE lines for this machine, and any `directive="value"` timeout replaced."""
    text = SITE.read_text()
    servers = r"(upstream payments_app \{.*?)(\n    server [^\n]+;)+"
    text = re.sub(servers, r"\1\n    server UPSTREAM;", text, flags=re.S)
    text = _replace_once(text, "server UPSTREAM;", f"server 127.0.0.1:{upstream_port};")
    text = _replace_once(text, "listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    text = _replace_once(text, "listen 80;", f"listen 127.0.0.1:{http_port};")
    text = re.sub(r"ssl_certificate [^;]+;", f"ssl_certificate {cert};", text)
    text = re.sub(r"ssl_certificate_key [^;]+;", f"ssl_certificate_key {key};", text)
    for directive, value in timeouts.items():
        text, count = re.subn(rf"(\n\s+{directive}) [^;]+;", rf"\1 {value};", text)
        assert count == 1, f"config/nginx.conf no longer sets {directive}"
    return text


@contextlib.contextmanager
def nginx(folder: Path, upstream_port: int, *, http_port: int | None = None, **timeouts: str) -> Iterator[Nginx]:
    """nginx in the foreground with the site file, its pid, logs and buffers in `folder` (Debian's nginx.conf
    includes the site inside `http`, as the wrapper here does)."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = _certificate(folder)
    http_port, https_port = http_port or free_port(), free_port()
    (folder / "site.conf").write_text(site_config(upstream_port, http_port, https_port, cert, key, **timeouts))
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in kinds)
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers write their buffers in this root-owned folder
    (folder / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
        # Each client connection takes a second one to the app server: 64 let the bench's 64 clients overflow it.
        f"events {{ worker_connections 1024; }}\n"
        f"http {{\n    access_log off;\n{temp}\n    include {folder / 'site.conf'};\n}}\n"
    )
    command = [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(http_port, process)
        yield Nginx(http_port, https_port, process, folder / "error.log")
    finally:
        stop_process(process, grace=10)


def _wait_for_port(port: int, process: subprocess.Popen) -> None:
    for _ in range(100):
        assert process.poll() is None, "nginx exited"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.1)
    raise AssertionError(f"nginx did not listen on {port}")
