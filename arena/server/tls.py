"""TLS for the service: its certificate and key, checked once, for the gRPC API and the web
pages; and the certificate authority a client trusts."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc


class TlsError(ValueError):
    """A certificate, key or CA file that cannot be used (its text is one line for the user)."""


@dataclass(frozen=True)
class TlsFiles:
    """A server's certificate chain and private key: their paths and PEM bytes."""

    cert: Path
    key: Path
    cert_pem: bytes
    key_pem: bytes

    def server_credentials(self) -> grpc.ServerCredentials:
        """The gRPC server's credentials (no client certificates asked)."""
        return grpc.ssl_server_credentials([(self.key_pem, self.cert_pem)])


def read_pem(path: Path, what: str) -> bytes:
    """The bytes of a PEM file; ``TlsError`` when it is missing, unreadable or not PEM."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise TlsError(f"cannot read the {what} {path}: "
                       f"{error.strerror or error}") from None
    if b"-----BEGIN " not in data:
        raise TlsError(f"the {what} {path} is not a PEM file (it has no '-----BEGIN' line)")
    return data


def load_tls(cert: Path, key: Path) -> TlsFiles:
    """The certificate and key at these paths, once checked to be readable PEM files that
    belong together; ``TlsError`` (one line) otherwise."""
    cert_pem = read_pem(cert, "TLS certificate")
    key_pem = read_pem(key, "TLS key")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except ssl.SSLError as error:
        reason = (error.reason or str(error)).lower().replace("_", " ")
        if "mismatch" in reason:
            raise TlsError(f"the TLS key {key} does not match the certificate {cert}") from None
        raise TlsError(f"cannot use the TLS certificate {cert} with the key {key}: "
                       f"{reason}") from None
    return TlsFiles(cert=Path(cert), key=Path(key), cert_pem=cert_pem, key_pem=key_pem)


def client_credentials(ca: Path | None) -> grpc.ChannelCredentials:
    """A client's TLS credentials trusting the CA certificate at ``ca`` (None: the system's
    roots); ``TlsError`` when the file cannot be read."""
    roots = read_pem(ca, "CA certificate") if ca is not None else None
    return grpc.ssl_channel_credentials(root_certificates=roots)
