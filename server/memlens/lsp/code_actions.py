"""`textDocument/codeAction`: a quick fix on any diagnostic that asks `memlens.fixes` for the past occurrences of
its message and what was done next."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from memlens.requests import MAX_PASTE_CHARS, text_end

FIXES_COMMAND = "memlens.fixes"
TITLE = "memlens: past occurrences of this error"
KINDS = [types.CodeActionKind.QuickFix]


def _wanted(only: Sequence[str] | None) -> bool:
    """Whether the client asked for quick fixes (no `only`, or a kind quick fixes belong to)."""
    if not only:
        return True
    kind = str(types.CodeActionKind.QuickFix.value)
    return any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def error_text(message: str) -> str:
    """A diagnostic's message as the `error` of a fixes request: trimmed, and its end within the most the request
    takes, so the command never fails on a long compiler message (the engine reads its end, and says so)."""
    return text_end(message.strip(), MAX_PASTE_CHARS)[0].strip()


def fix_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    """One quick fix per diagnostic with a message: the command `memlens.fixes` with `{error: message}`."""
    if not _wanted(params.context.only):
        return []
    actions: list[types.CodeAction] = []
    seen: set[str] = set()
    for diagnostic in params.context.diagnostics:
        error = error_text(diagnostic.message)
        if not error or error in seen:  # the same message twice under the cursor asks one question
            continue
        seen.add(error)
        actions.append(
            types.CodeAction(
                title=TITLE,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(title=TITLE, command=FIXES_COMMAND, arguments=[{"error": error}]),
            )
        )
    return actions
