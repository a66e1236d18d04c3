"""Tries to reach the network before it serves: a name lookup, connections by address, a
listening port and raw sockets; reports each outcome, then plays."""

from __future__ import annotations

import errno
import socket
import sys

from cardarena_sdk import Bot, Request, serve

NAMES = ("example.com", "host.docker.internal", "pypi.org")
ADDRESSES = (("1.1.1.1", 53), ("8.8.8.8", 443), ("172.17.0.1", 2375), ("10.0.0.1", 80))
TIMEOUT_S = 2.0


def report(probe: str, outcome: str, detail: str) -> None:
    """One line on stderr: the probe, its outcome and what happened."""
    print(f"probe {probe}: {outcome} ({detail})", file=sys.stderr, flush=True)


def error_text(error: OSError) -> str:
    """``ENETUNREACH: Network is unreachable`` (or the exception for errors without errno)."""
    name = errno.errorcode.get(error.errno or 0, "")
    return f"{name}: {error.strerror}" if name else f"{type(error).__name__}: {error}"


def by_name() -> None:
    """Look names up."""
    for name in NAMES:
        try:
            found = socket.getaddrinfo(name, 443, proto=socket.IPPROTO_TCP)
        except OSError as error:
            report(f"net-name {name}", "blocked", f"{type(error).__name__}: {error}")
        else:
            report(f"net-name {name}", "ESCAPED", f"resolved to {found[0][4][0]}")


def by_address() -> None:
    """Connect over TCP and send over UDP to addresses outside."""
    for host, port in ADDRESSES:
        try:
            with socket.create_connection((host, port), timeout=TIMEOUT_S):
                pass
        except OSError as error:
            report(f"net-tcp {host}:{port}", "blocked", error_text(error))
        else:
            report(f"net-tcp {host}:{port}", "ESCAPED", "connected")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            try:
                udp.sendto(b"hello", (host, port))
            except OSError as error:
                report(f"net-udp {host}:{port}", "blocked", error_text(error))
            else:
                report(f"net-udp {host}:{port}", "ESCAPED", "sent a datagram")


def interfaces() -> None:
    """The network interfaces: only loopback may exist."""
    names = sorted(name for _, name in socket.if_nameindex())
    outcome = "contained" if names == ["lo"] else "ESCAPED"
    report("net-interfaces", outcome, ",".join(names))


def bind_port() -> None:
    """Listen on a port on every address (reachable, at most, on loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        try:
            server.bind(("0.0.0.0", 8080))
            server.listen()
        except OSError as error:
            report("net-bind 0.0.0.0:8080", "blocked", error_text(error))
            return
        outside = [name for _, name in socket.if_nameindex() if name != "lo"]
        outcome = "ESCAPED" if outside else "contained"
        report("net-bind 0.0.0.0:8080", outcome,
               f"listening; interfaces other than lo: {','.join(outside) or 'none'}")


def raw_sockets() -> None:
    """Open raw and packet sockets (they need CAP_NET_RAW)."""
    kinds = {"net-raw icmp": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
             "net-raw packet": (socket.AF_PACKET, socket.SOCK_RAW, 0)}
    for probe, (family, kind, proto) in kinds.items():
        try:
            raw = socket.socket(family, kind, proto)
        except OSError as error:
            report(probe, "blocked", error_text(error))
        else:
            raw.close()
            report(probe, "ESCAPED", "opened")


class FirstLegal(Bot):
    """The first legal action."""

    name = "network-probe"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    by_name()
    by_address()
    interfaces()
    bind_port()
    raw_sockets()
    serve(FirstLegal)
