"""A search answered by the running `memlens serve` / `memlens mcp` that holds the index open (local_api/), when it
indexes as this command would: a few times cheaper than opening the index here."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import cast

from memlens.engine.index_location import index_dir_for, resolve_workspaces
from memlens.errors import InvalidRequest
from memlens.local_api.client import ServerDeclined, ServerError, ask
from memlens.local_api.protocol import Request as ServerRequest
from memlens.local_api.same_index import terms
from memlens.requests import SearchRequest, to_wire
from memlens.settings import Settings
from memlens.wire import SearchResponse

log = logging.getLogger("memlens.cli")

# flags that change what is indexed or how: said in the line that tells why the server did not answer
_OWN_ENGINE_FLAGS = ("transcripts", "scope", "no_embeddings", "model", "model_path", "settings")


def ask_server(
    args: argparse.Namespace, request: SearchRequest, located: tuple[list[Path], Settings]
) -> SearchResponse | None:
    """The answer of the `memlens serve` / `memlens mcp` that holds this index open, if one runs and indexes as this
    command would (same_index.py); when it declines, one stderr line says why (under -v, or when flags caused it)."""
    if args.no_server:
        return None
    workspaces, settings = located
    index_dir = index_dir_for(
        workspaces=resolve_workspaces(workspaces), configured=settings.index_dir, explicit=args.index_dir
    )
    question: ServerRequest = {
        "method": "search",
        "params": to_wire(request),
        "terms": terms(settings, args.transcripts),
    }
    try:
        answer = ask(index_dir, question)
    except ServerError as exc:
        raise InvalidRequest(str(exc)) from exc
    except ServerDeclined as exc:
        flags = [f"--{flag.replace('_', '-')}" for flag in _OWN_ENGINE_FLAGS if getattr(args, flag)]
        if args.verbose or flags:
            from memlens.redaction import redact

            print(f"memlens: searching here, not in the running server: {redact(str(exc))}", file=sys.stderr)
        return None
    if answer is None:
        return None
    log.info("answered by the memlens server of %s", index_dir)
    return cast("SearchResponse", answer)  # the server's engine.search answer, as JSON
