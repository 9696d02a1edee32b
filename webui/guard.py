"""What every request must show before a view runs.

The server listens on the LAN of a living room, and the players' browsers visit other sites too.
Three checks keep those sites out:
- the Host header must name this machine (localhost, one of its own addresses or names, or a name
  given with `alea serve --allow-host`): a page that re-points its own domain at this machine
  (DNS rebinding) would otherwise be same-origin with the game;
- a POST that a browser marks as coming from another page (`Origin`) is refused;
- a POST must say what it sends, JSON (or a photo for `/api/scan`): the content types a page of
  another site may send without asking first (a form's, `text/plain`) are refused.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request

from scanner.errors import InputError

# JSON bodies are small (a final inventory is a few kB); anything bigger is refused early.
# Photos for /api/scan may be larger, up to MAX_UPLOAD_BYTES.
MAX_BODY_BYTES = 1 << 20
MAX_UPLOAD_BYTES = 20 << 20
JSON_TYPES = ("application/json",)
IMAGE_ROUTES = ("/api/scan",)
REFRESH_S = 10.0  # an address the machine gained (DHCP, a new network) is found this soon


def lan_address() -> str | None:
    """The address of the default route, the one tablets on the same network reach this
    machine at; None without a network. No packet is sent: connecting a UDP socket only picks
    the route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
    except OSError:
        return None


def own_addresses() -> set[str]:
    """This machine's addresses and names, as far as the standard library can tell without a
    packet sent: its host names, what they resolve to, the address of its default route and,
    on Linux, every interface's address."""
    names = {"localhost", "127.0.0.1", "::1"}
    host = socket.gethostname()
    for name in (host, f"{host}.local"):
        names.add(name.lower())
        with contextlib.suppress(OSError):
            names.update(str(info[4][0]) for info in socket.getaddrinfo(name, None))
    lan = lan_address()
    if lan is not None:
        names.add(lan)
    names.update(_linux_interface_addresses())
    return {n.split("%")[0].lower() for n in names}


def _linux_interface_addresses() -> Iterable[str]:
    try:
        with open("/proc/net/if_inet6", encoding="ascii") as f:
            for line in f:
                raw = line.split()[0]
                yield str(ipaddress.IPv6Address(bytes.fromhex(raw)))
    except (OSError, ValueError, IndexError):
        pass
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _, name in socket.if_nameindex():
                try:
                    packed = struct.pack("256s", name.encode()[:15])
                    answer = fcntl.ioctl(s.fileno(), 0x8915, packed)  # SIOCGIFADDR
                    yield socket.inet_ntoa(answer[20:24])
                except OSError:
                    continue
    except (ImportError, OSError, AttributeError):
        pass


def host_name(host: str) -> str:
    """The name in a Host header or an Origin, without its port: `[::1]:8000` -> `::1`."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host[1:]
    elif host.count(":") == 1:
        host = host.split(":")[0]
    return host.rstrip(".")  # "localhost." is the same name, fully qualified


class HostCheck:
    """Which Host headers this server answers. `allowed`: names and addresses given by the
    operator on top of this machine's own; `"*"` among them switches the check off."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.extra = {host_name(h) for h in allowed if h}
        self.lock = threading.Lock()
        self.known: set[str] = set()
        self.looked = -REFRESH_S  # looked up at the first name that is not plainly local

    def allows(self, name: str) -> bool:
        if "*" in self.extra or name in self.extra or name == "localhost":
            return True
        if name.endswith(".localhost"):
            return True  # RFC 6761: always this machine
        try:
            address = ipaddress.ip_address(name)
            mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
            if address.is_loopback or (mapped is not None and mapped.is_loopback):
                return True
        except ValueError:
            pass
        with self.lock:  # a name of ours not seen yet: look again, now and then
            if name not in self.known and time.monotonic() - self.looked > REFRESH_S:
                self.known = own_addresses()
                self.looked = time.monotonic()
            return name in self.known


def _refusal(status: int, code: str, message: str) -> tuple[Response, int]:
    return jsonify(InputError(code, message).to_json()), status


def check_request(hosts: HostCheck) -> tuple[Response, int] | None:
    """None when the request may go on; else the answer that refuses it."""
    # No Host header at all: not a browser (they always send one), so not a rebinding page.
    name = host_name(request.host) if request.headers.get("Host") else ""
    if name and not hosts.allows(name):
        return _refusal(
            403,
            "http.host",
            f"this server answers to this machine's names and addresses, not {name!r}; "
            f"start alea serve with --allow-host {name} to allow it",
        )
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    origin = request.headers.get("Origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != request.host.lower():
            return _refusal(403, "http.origin", "changes are only taken from this server's pages")
    kind = request.mimetype
    if request.path in IMAGE_ROUTES:
        if not (
            kind.startswith("image/") or kind in ("application/octet-stream", "multipart/form-data")
        ):
            return _refusal(
                415,
                "http.content-type",
                "send the photo as image/* (or a multipart form file 'image'), "
                f"not {kind or 'no Content-Type'}",
            )
    elif kind not in JSON_TYPES and not kind.endswith("+json"):
        return _refusal(
            415,
            "http.content-type",
            f"send JSON with Content-Type: application/json, not {kind or 'no Content-Type'}",
        )
    return None


def install(app: Flask) -> None:
    hosts = HostCheck(app.config.get("ALLOWED_HOSTS", ()))
    app.before_request(lambda: check_request(hosts))
