"""The listener `memlens serve` and `memlens mcp` start beside their engine: it answers `memlens search` from the
index they already hold open. Only the process that holds the index's writer lock listens (one per index folder);
the socket is the owner's alone (mode 0600, and on Linux the peer's user id is checked) and is removed on close."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.engine.filters import filters_from_dict
from memlens.errors import IndexUnavailable, InvalidRequest
from memlens.local_api.protocol import MAX_LINE, encode, error, read_line, socket_path

if TYPE_CHECKING:
    from memlens.engine import Engine

log = logging.getLogger(__name__)

READ_SECONDS = 5.0  # a client that connects and says nothing is dropped after this
ACCEPT_SECONDS = 0.5  # how often the accept loop looks whether it was asked to stop
_STRINGS = ("query", "mode", "fusion")


class LocalServer:
    """Serves searches of whichever engine `engine_of` returns (it may be swapped, or None while reopening)."""

    def __init__(self, engine_of: Callable[[], Engine | None]) -> None:
        self._engine_of = engine_of
        self._listener: socket.socket | None = None
        self._path: Path | None = None
        self._inode: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def path(self) -> Path | None:
        """The socket being listened on, if any."""
        return self._path

    def attach(self, engine: Engine) -> None:
        """Listen in `engine`'s index folder if it holds the writer lock there (else stop listening)."""
        path = socket_path(engine.index_dir) if engine.writable else None
        if path == self._path:
            return
        self.close()
        if path is not None:
            self._listen(path)

    def close(self) -> None:
        """Stop listening and remove the socket (only ours: a successor's socket at the same path stays)."""
        listener, path, inode, thread = self._listener, self._path, self._inode, self._thread
        self._listener = self._path = self._inode = self._thread = None
        if listener is None:
            return
        self._stop.set()
        if thread is not None:
            thread.join(5.0)
        listener.close()
        if path is not None:
            with contextlib.suppress(OSError):
                if path.stat().st_ino == inode:
                    path.unlink()
        self._stop.clear()

    def _listen(self, path: Path) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if path.exists() and _answers(path):
                log.warning("another memlens server answers at %s; not listening there", path)
                listener.close()
                return
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # a socket left by a process that died
            listener.bind(str(path))
            os.chmod(path, 0o600)
            listener.listen(8)
            listener.settimeout(ACCEPT_SECONDS)
            inode = path.stat().st_ino
        except OSError as exc:  # a read-only folder, a name that is not a socket: the CLI opens the index itself
            listener.close()
            log.warning("cannot listen at %s (%s); `memlens search` will open the index itself", path, exc)
            return
        self._listener, self._path, self._inode = listener, path, inode
        self._thread = threading.Thread(target=self._serve, args=(listener,), name="memlens-local", daemon=True)
        self._thread.start()
        log.info("answering `memlens search` at %s", path)

    def _serve(self, listener: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed
            with conn:
                try:
                    self._handle(conn)
                except OSError as exc:  # the client went away: its loss alone
                    log.debug("local client: %s", exc)

    def _handle(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            conn.sendall(encode(error("this socket answers its owner only", "invalid")))
            return
        conn.settimeout(READ_SECONDS)
        line = read_line(conn, MAX_LINE)
        conn.sendall(encode(self.answer(line)))

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line (any failure is an answer too, never an exception)."""
        try:
            request = json.loads(line)
        except ValueError:
            return error("the request is not JSON", "invalid")
        if not isinstance(request, dict) or request.get("method") != "search":
            return error('the only method is "search"', "invalid")
        params = request.get("params")
        engine = self._engine_of()
        if engine is None:
            return error("the index is not open yet", "unavailable")
        try:
            return {"result": engine.search(**_search_arguments(params))}
        except IndexUnavailable as exc:
            return error(str(exc), "unavailable")
        except InvalidRequest as exc:
            return error(str(exc), "invalid")
        except Exception as exc:  # a bug: logged here, and the CLI answers itself
            log.exception("local search failed")
            return error(f"{type(exc).__name__}: {exc}", "internal")


def _search_arguments(params: object) -> dict[str, Any]:
    """`Engine.search`'s keyword arguments from the request's params, each checked for its type."""
    if not isinstance(params, dict) or not isinstance(params.get("query"), str):
        raise InvalidRequest("params.query must be a string")
    for key in _STRINGS:
        if params.get(key) is not None and not isinstance(params[key], str):
            raise InvalidRequest(f"params.{key} must be a string")
    limit, min_score, filters = params.get("limit"), params.get("minScore"), params.get("filters") or {}
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
        raise InvalidRequest("params.limit must be an integer")
    if min_score is not None and (not isinstance(min_score, (int, float)) or isinstance(min_score, bool)):
        raise InvalidRequest("params.minScore must be a number")
    if not isinstance(filters, dict):
        raise InvalidRequest("params.filters must be an object")
    return {
        "query": params["query"],
        "limit": limit,
        "mode": params.get("mode"),
        "fusion": params.get("fusion"),
        "min_score": None if min_score is None else float(min_score),
        "explain": bool(params.get("explain")),
        "filters": filters_from_dict(filters),
    }


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this process's user (Linux: SO_PEERCRED; elsewhere the socket's 0600 mode decides)."""
    if not sys.platform.startswith("linux"):
        return True
    credentials = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return bool(uid == os.getuid())


def _answers(path: Path) -> bool:
    """Whether something listens at `path` (a live server, not a file left by a dead one)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True
