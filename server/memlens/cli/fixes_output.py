"""What `memlens fixes` prints for people: each past error that matched, then the messages that followed it."""

from __future__ import annotations

import sys
from datetime import tzinfo

from memlens.cli.clock import local_time
from memlens.cli.terminal import fitted
from memlens.wire import FixesResponse

ERROR_LINES = 8  # lines of each error shown (its header and the telling lines the index kept)
MESSAGE_CHARS = 300  # each following message, cut for a terminal


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def print_fixes(answer: FixesResponse, zone: tzinfo | None = None) -> None:
    if not answer["fixes"]:
        print("no past tool output matches that error")
        return
    for number, fix in enumerate(answer["fixes"], 1):
        title = f" · {fix['title']}" if fix.get("title") else ""
        when = f" · {local_time(fix['timestamp'], zone)}" if fix["timestamp"] else ""
        # on a terminal the header and the messages fold to its width; the error's own lines stay as they were
        print(
            fitted(f"{number}. {fix['sessionKey']}{title}{when} · message {fix['messageId']}", sys.stdout, indent="   ")
        )
        for line in fix["text"].splitlines()[:ERROR_LINES]:
            print(f"   | {line}")
        if not fix["after"]:
            print("   (nothing followed it in the session)")
        for message in fix["after"]:
            line = f"   → {message['role']}: {_one_line(message['text'], MESSAGE_CHARS)}"
            print(fitted(line, sys.stdout, indent="     "))
        print()
