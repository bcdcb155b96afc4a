"""Who may talk to `memlens mcp --http`: the transcripts it serves are as private as the user's shell history.

- A bind that is not loopback (`0.0.0.0`, a LAN address, a host name) is refused unless a bearer token is set
  (`--token-file PATH`, or the environment variable MEMLENS_MCP_TOKEN), and says it is reachable from the network.
- With a token set (loopback too, if the user sets one), every request must carry `Authorization: Bearer <token>`;
  the SDK's bearer middleware asks `StaticTokenVerifier`, which compares in constant time.
- On every bind the SDK's transport security checks the Host header (the bound host and port, plus `--allow-host`
  extras) and the Origin header when a browser sends one (the same hosts over http/https, plus `--allow-origin`),
  which is what stops a web page from reaching the server through DNS rebinding.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import socket
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

from memlens.errors import InvalidRequest
from memlens.requests import MAX_MESSAGE_BYTES

TOKEN_ENV = "MEMLENS_MCP_TOKEN"
MIN_TOKEN_CHARS = 16
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


@dataclass(frozen=True)
class HttpSecurity:
    """What the HTTP transport checks: the token (None: none required) and the Host/Origin values allowed, which
    follow from the bound host and port (`on_port`: port 0 is known once the system picked one) and the extras."""

    host: str
    port: int
    token: str | None
    extra_hosts: tuple[str, ...] = ()
    extra_origins: tuple[str, ...] = ()

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def on_port(self, port: int) -> HttpSecurity:
        """The same checks for the port the server was bound to."""
        return replace(self, port=port)

    @property
    def allowed_hosts(self) -> list[str]:
        hosts = [f"{_url_host(name)}:{self.port}" for name in _names_for(self.host)] + list(self.extra_hosts)
        return list(dict.fromkeys(hosts))

    @property
    def allowed_origins(self) -> list[str]:
        names = _names_for(self.host)
        origins = [f"{scheme}://{_url_host(name)}:{self.port}" for name in names for scheme in ("http", "https")]
        origins += [f"{scheme}://{extra}" for extra in self.extra_hosts for scheme in ("http", "https")]
        return list(dict.fromkeys([*origins, *self.extra_origins]))

    def app_options(self) -> dict[str, Any]:
        """The keyword arguments of the SDK's `streamable_http_app` that enforce all of the above."""
        options: dict[str, Any] = {
            "host": self.host,
            "max_request_body_size": MAX_MESSAGE_BYTES,  # the bound of a message on every wire
            "transport_security": TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=self.allowed_hosts,
                allowed_origins=self.allowed_origins,
            ),
        }
        if self.token is not None:
            options["auth"] = AuthSettings(
                # no OAuth server: a static token only; the SDK requires an issuer, it serves no route for it here
                issuer_url=AnyHttpUrl(f"http://{_url_host(self.host)}:{self.port}"),
                resource_server_url=None,
            )
            options["token_verifier"] = StaticTokenVerifier(self.token)
        return options


class StaticTokenVerifier:
    """The SDK's TokenVerifier for one shared secret."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode("utf-8", errors="replace"), self._token):
            return None
        return AccessToken(token="[bearer]", client_id="memlens-token", scopes=[])


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def http_security(
    host: str,
    port: int,
    *,
    token_file: Path | None = None,
    extra_hosts: list[str] | None = None,
    extra_origins: list[str] | None = None,
    environ: dict[str, str] | None = None,
) -> HttpSecurity:
    """The checks for serving at host:port; InvalidRequest (one line) when a non-loopback bind has no token or
    the token cannot be read."""
    token = _read_token(token_file, os.environ if environ is None else environ)
    if token is None and not is_loopback(host):
        raise InvalidRequest(
            f"--http {host}:{port} would serve every transcript to the network: set a bearer token with "
            f"--token-file PATH or the {TOKEN_ENV} environment variable (at least {MIN_TOKEN_CHARS} characters), "
            "or bind 127.0.0.1"
        )
    return HttpSecurity(host, port, token, tuple(extra_hosts or ()), tuple(extra_origins or ()))


def _read_token(token_file: Path | None, environ: dict[str, str] | os._Environ[str]) -> str | None:
    if token_file is not None:
        try:
            token = token_file.expanduser().read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"cannot read the token file {token_file}: {exc}") from exc
        source = f"the token file {token_file}"
    elif environ.get(TOKEN_ENV):
        token, source = environ[TOKEN_ENV].strip(), TOKEN_ENV
    else:
        return None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() or not c.isprintable() for c in token):
        raise InvalidRequest(
            f"{source} must hold one token of at least {MIN_TOKEN_CHARS} printable characters without spaces "
            "(e.g. the output of `openssl rand -hex 32`)"
        )
    return token


def _names_for(host: str) -> list[str]:
    """The names a client may put in the Host header for this bind."""
    if is_loopback(host):
        return [host, *LOOPBACK_NAMES]
    if host in WILDCARD_HOSTS:  # every address of this machine: its names and the loopback ones
        names = [socket.gethostname(), socket.getfqdn(), *LOOPBACK_NAMES]
        return [name for name in names if name]
    return [host]


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
