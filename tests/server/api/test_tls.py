"""TLS for the gRPC API and the web pages, with a self-signed certificate made here: a client
trusting it connects; one that does not, or talks plaintext, cannot; the pages answer over
https; bad certificate files are one error line."""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from typer.testing import CliRunner

from arena.cli import app
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.api.server import ApiServer, start_api
from arena.server.remote import RemoteArena, RemoteError
from arena.server.tls import load_tls
from arena.store import open_store
from tests.interrupts import default_sigint
from tests.server.api.conftest import FAKE_UPLOADS

runner = CliRunner()

START_S = 60.0
"""How long ``arena serve`` may take to answer (never reached)."""


@dataclass(frozen=True)
class Pair:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key, as PEM files."""

    cert: Path
    key: Path


def self_signed(folder: Path, name: str) -> Pair:
    """Make a self-signed certificate (its own CA) for 127.0.0.1 and localhost."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pair = Pair(cert=folder / f"{name}.crt", key=folder / f"{name}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return pair


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    """The service's certificate and key."""
    return self_signed(tmp_path, "arena")


@pytest.fixture
def stranger(tmp_path: Path) -> Pair:
    """Another self-signed certificate, which the service does not use."""
    return self_signed(tmp_path, "stranger")


@pytest.fixture
def tls_api(tmp_path: Path, pair: Pair) -> Iterator[ApiServer]:
    """The gRPC API over TLS on a free port of 127.0.0.1."""
    url = f"sqlite:///{tmp_path / 'tls.db'}"
    store = open_store(url)
    api = start_api(store, url, tmp_path / "data", "127.0.0.1:0", workers=1,
                    uploads=FAKE_UPLOADS, tls=load_tls(pair.cert, pair.key))
    yield api
    api.stop(0)
    store.close()


def register(server: str, ca: Path | None, name: str) -> str:
    """Register ``name`` and return its token."""
    with RemoteArena(server, tls_ca=ca) as client:
        return str(client.call("RegisterUser", pb.RegisterUserRequest(name=name)).token)


def test_a_client_trusting_the_certificate_connects(tls_api: ApiServer, pair: Pair) -> None:
    """With the service's certificate as its CA, a client registers and calls."""
    server = f"127.0.0.1:{tls_api.port}"
    token = register(server, pair.cert, "alice")
    with RemoteArena(server, token, tls_ca=pair.cert) as alice:
        assert list(alice.call("ListBots", pb.ListBotsRequest()).bots) == []


def test_plaintext_and_untrusted_clients_cannot_connect(tls_api: ApiServer,
                                                        stranger: Pair) -> None:
    """A plaintext client, and a TLS client trusting another CA, are UNAVAILABLE."""
    server = f"127.0.0.1:{tls_api.port}"
    for ca in (None, stranger.cert):
        with pytest.raises(RemoteError) as caught:
            register(server, ca, "mallory")
        assert caught.value.code == grpc.StatusCode.UNAVAILABLE
        assert str(caught.value).startswith("the arena service cannot be reached")


def test_a_missing_ca_file_is_one_error_line(tmp_path: Path) -> None:
    """``arena remote --tls-ca`` with no such file says so, exit code 2."""
    missing = tmp_path / "nowhere.pem"
    result = runner.invoke(app, ["remote", "--tls-ca", str(missing), "register", "alice",
                                 "--server", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: cannot read the CA certificate {missing}: No such file or directory"]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_over_tls_serves_the_api_and_the_pages(tmp_path: Path, pair: Pair) -> None:
    """``arena serve --tls-cert --tls-key``: ``arena remote --tls-ca`` registers, a
    plaintext client cannot, and the pages answer over https (and not over http)."""
    port, web_port = free_port(), free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    env.pop("ARENA_TLS_CA", None)
    server = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import app; app()", "serve",
         "--db", str(tmp_path / "arena.db"), "--grpc-port", str(port), "--web-port",
         str(web_port), "--tls-cert", str(pair.cert), "--tls-key", str(pair.key)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint)
    trusting = ssl.create_default_context(cafile=str(pair.cert))
    try:
        deadline = time.monotonic() + START_S
        while True:
            result = runner.invoke(app, ["remote", "--tls-ca", str(pair.cert), "register",
                                         "alice", "--server", f"127.0.0.1:{port}"])
            if result.exit_code == 0:
                break
            assert server.poll() is None, server.communicate()
            assert time.monotonic() < deadline, result.output
            time.sleep(0.2)
        plain = runner.invoke(app, ["remote", "register", "bob", "--server",
                                    f"127.0.0.1:{port}"])
        assert plain.exit_code == 2
        assert plain.output.startswith("error: the arena service cannot be reached")
        while True:
            try:
                page = httpx.get(f"https://127.0.0.1:{web_port}/", verify=trusting, timeout=10)
                break
            except httpx.ConnectError:
                assert server.poll() is None, server.communicate()
                assert time.monotonic() < deadline, "the web pages did not start"
                time.sleep(0.2)
        assert page.status_code == 200 and "<html" in page.text.lower()
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{web_port}/", timeout=10)
        with pytest.raises(httpx.ConnectError):  # a client that does not trust it
            httpx.get(f"https://127.0.0.1:{web_port}/", timeout=10)
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert f"web pages on https://127.0.0.1:{web_port}/" in stderr


@pytest.mark.parametrize("case", ["missing cert", "missing key", "not pem", "mismatch",
                                  "only cert"])
def test_bad_tls_files_are_one_error_line(tmp_path: Path, pair: Pair, stranger: Pair,
                                          case: str) -> None:
    """A missing, unreadable or non-PEM file, a key of another certificate, or a certificate
    without its key: ``arena serve`` says which in one line, exit code 2."""
    missing = tmp_path / "missing.pem"
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    args, expected = {
        "missing cert": (["--tls-cert", str(missing), "--tls-key", str(pair.key)],
                         f"cannot read the TLS certificate {missing}: No such file or "
                         "directory"),
        "missing key": (["--tls-cert", str(pair.cert), "--tls-key", str(missing)],
                        f"cannot read the TLS key {missing}: No such file or directory"),
        "not pem": (["--tls-cert", str(junk), "--tls-key", str(pair.key)],
                    f"the TLS certificate {junk} is not a PEM file (it has no '-----BEGIN' "
                    "line)"),
        "mismatch": (["--tls-cert", str(pair.cert), "--tls-key", str(stranger.key)],
                     f"the TLS key {stranger.key} does not match the certificate "
                     f"{pair.cert}"),
        "only cert": (["--tls-cert", str(pair.cert)],
                      "TLS needs both --tls-cert PATH and --tls-key PATH"),
    }[case]
    result = runner.invoke(app, ["serve", "--db", str(tmp_path / "arena.db"), *args])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"error: {expected}"]


@pytest.fixture(autouse=True)
def _no_ca_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests say which CA they trust."""
    monkeypatch.delenv("ARENA_TLS_CA", raising=False)


def test_unreadable_key_is_one_error_line(tmp_path: Path, pair: Pair) -> None:
    """A key the service may not read is named in one line."""
    if os.geteuid() == 0:
        locked = tmp_path / "folder-as-key"
        locked.mkdir()
        expected = f"cannot read the TLS key {locked}: Is a directory"
    else:
        locked = tmp_path / "locked.key"
        shutil.copy(pair.key, locked)
        locked.chmod(0)
        expected = f"cannot read the TLS key {locked}: Permission denied"
    result = runner.invoke(app, ["serve", "--db", str(tmp_path / "arena.db"), "--tls-cert",
                                 str(pair.cert), "--tls-key", str(locked)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {expected}"]
