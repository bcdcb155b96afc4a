"""The listener `memlens serve` and `memlens mcp` start beside their engine: it answers `memlens search` from the
index they already hold open. Only the process that holds the index's writer lock listens (one per index folder);
the socket is the owner's alone (mode 0600, and on Linux the peer's user id is checked) and is removed on close.
Each connection is answered on its own thread (at most MAX_CLIENTS at once), its request bounded in size
(requests.MAX_MESSAGE_BYTES), time (READ_SECONDS in all), nesting and values (memlens.requests), so no client can
kill or hold the listener. Every error it writes is masked as it is written (`_send`): a refusal quotes what the
client sent (a value out of bounds, a folder it asked about, a setting's value), and the CLI says it on stderr. A
result is not scanned again: the engine's door masked it."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlens.errors import IndexUnavailable, InvalidRequest
from memlens.local_api.protocol import encode, error, read_line, socket_path
from memlens.local_api.same_index import difference, terms
from memlens.redaction import redact_strings
from memlens.requests import MAX_MESSAGE_BYTES, SearchRequest, load_json

if TYPE_CHECKING:
    from memlens.engine import Engine
    from memlens.wire import SearchResponse

log = logging.getLogger(__name__)

READ_SECONDS = 5.0  # a client's whole request must arrive within this (a byte every few seconds is dropped)
ACCEPT_SECONDS = 0.5  # how often the accept loop looks whether it was asked to stop
MAX_CLIENTS = 16  # connections answered at once; past this a client is told "busy" and asks its own engine


class LocalServer:
    """Serves searches of whichever engine `engine_of` returns (it may be swapped, or None while reopening)."""

    def __init__(self, engine_of: Callable[[], Engine | None]) -> None:
        self._engine_of = engine_of
        self._listener: socket.socket | None = None
        self._path: Path | None = None
        self._inode: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)

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
            listener.listen(32)
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
        """Accept connections until closed; each is answered on its own thread, so no client can hold the others."""
        while not self._stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed
            try:
                self._dispatch(conn)
            except Exception:  # whatever one connection does, the listener goes on
                log.exception("local client: cannot start its handler")
                conn.close()

    def _dispatch(self, conn: socket.socket) -> None:
        if not self._slots.acquire(blocking=False):
            with conn:  # every slot is held (clients that say nothing yet): this one asks its own engine
                conn.settimeout(READ_SECONDS)
                _send(conn, error("the server is busy", "unavailable"))
            return
        try:
            threading.Thread(target=self._connection, args=(conn,), name="memlens-local-client", daemon=True).start()
        except BaseException:
            self._slots.release()
            raise

    def _connection(self, conn: socket.socket) -> None:
        try:
            with conn:
                self._handle(conn)
        except OSError as exc:  # the client went away, or trickled past the deadline: its loss alone
            log.debug("local client: %s", exc)
        except Exception:
            log.exception("local client: unexpected failure")
        finally:
            self._slots.release()

    def _handle(self, conn: socket.socket) -> None:
        if not _same_user(conn):
            _send(conn, error("this socket answers its owner only", "invalid"))
            return
        line = read_line(conn, MAX_MESSAGE_BYTES, READ_SECONDS)
        conn.settimeout(READ_SECONDS)  # the answer is written within the same bound, however slowly it is read
        _send(conn, self.answer(line))

    def answer(self, line: bytes) -> dict[str, Any]:
        """The answer to one request line (any failure is an answer too, never an exception)."""
        if len(line) > MAX_MESSAGE_BYTES:
            return error(f"the request is larger than {MAX_MESSAGE_BYTES:,} bytes", "invalid")
        try:
            request = load_json(line)
        except InvalidRequest as exc:
            return error(str(exc), "invalid")
        if not isinstance(request, dict) or request.get("method") != "search":
            return error('the only method is "search"', "invalid")
        engine = self._engine_of()
        if engine is None:
            return error("the index is not open yet", "unavailable")
        try:
            search = SearchRequest.parse(request.get("params"))
            if "terms" in request:
                why = _declined(engine, request["terms"], keyword=search.mode == "keyword")
                if why is not None:
                    return error(why, "declined")
            return {"result": _search(engine, search)}
        except IndexUnavailable as exc:
            return error(str(exc), "unavailable")
        except InvalidRequest as exc:
            return error(str(exc), "invalid")
        except Exception as exc:  # a bug: logged here, and the CLI answers itself
            log.exception("local search failed")
            return error(f"{type(exc).__name__}: {exc}", "internal")


def _send(conn: socket.socket, answer: dict[str, Any]) -> None:
    """Write one answer: an error's every string masked (it may quote the request), a result as the door left it."""
    if "error" in answer:
        answer = {"error": redact_strings(answer["error"])}
    conn.sendall(encode(answer))


def _declined(engine: Engine, asked: object, *, keyword: bool) -> str | None:
    """Why this server's engine cannot answer as the asking command's own would (same_index.py), or None."""
    served = terms(engine.settings, engine.extra_transcripts)
    asked_folders = asked.get("transcripts") if isinstance(asked, dict) else None
    folders: list[str] = []
    if asked_folders and not set(asked_folders) <= set(served["transcripts"]):
        folders = [str(Path(folder["path"]).resolve()) for folder in engine.source_folders()["sources"]]
    return difference(asked, served, folders, keyword=keyword)


def _search(engine: Engine, request: SearchRequest) -> SearchResponse:
    return engine.search(
        request.query,
        limit=request.limit,
        mode=request.mode,
        fusion=request.fusion,
        min_score=request.min_score,
        explain=request.explain,
        filters=request.filters,
    )


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
