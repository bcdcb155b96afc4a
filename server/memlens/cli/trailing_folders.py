"""Folders named after a query's words, as `rg PATTERN PATH` is typed: `memlens search heartbeat ~/notes` searches
~/notes, where joining every word into the query would search the current project for "heartbeat /home/u/notes"
and answer "no results" of a search the user never meant.

A query is free text whose unquoted words are joined, so the rule takes a word as a folder only where a user cannot
have meant it as words, and says every reading that could surprise:

- only the words after the first (the first is the query's, as ripgrep's pattern comes first), and only the last ones:
  a folder in the middle of a sentence stays a word;
- only a word written as a path: one holding a `/`, or `.`, `..`, `~`, `~/…`; a bare word (`build`) stays a word even
  where a folder of that name exists;
- only a folder that exists: a path-looking last word that names no folder, or names a file, stays in the query (a
  pasted error often ends with a path), and one line on stderr says it was read as words;
- none once `--` is given: every word after it is the query's (`memlens search -- -v /tmp`).

Each folder read is searched as a `--workspace DIR` is (several: all of them, with any `--workspace` given too), and
the answer says which (its summary line, or a note on stderr)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FOLDER_RULE = (
    "DIR: the last words, when written as paths (holding a '/', or '.', '..', '~') and naming existing folders, are "
    "the folders to search, as --workspace DIR (several: all of them), and the answer names them. A bare word "
    "(build) stays in the query, as does a path that names no folder or a file (a note on stderr says so), and every "
    "word after `--`."
)
"""The rule, as the --help of a command that takes a query says it."""


@dataclass(frozen=True)
class QueryWords:
    """A command line's query words split into the query and the folders named after it."""

    words: list[str]
    """The query's words, in order."""
    folders: list[Path]
    """The folders named after the query, each absolute, in the order given, each once."""
    kept: str | None = None
    """Why a last word written as a path stays in the query (it names no folder, or a file), to say on stderr."""


def written_as_path(word: str) -> bool:
    """Whether `word` is written as a path a user types for a folder, not as a word of a sentence."""
    return "/" in word or os.sep in word or word in (".", "..", "~") or word.startswith("~" + os.sep)


def split_off_folders(words: Sequence[str], *, options_ended: bool) -> QueryWords:
    """The query `words` and the folders named after them (the module's rule). `options_ended`: `--` was given, so
    every word is the query's."""
    words = list(words)
    if options_ended:
        return QueryWords(words, [])
    folders: list[Path] = []
    while len(words) > 1 and written_as_path(words[-1]):
        word = words[-1]
        folder = Path(word).expanduser()
        if not folder.is_dir():
            return QueryWords(words, _each_once(folders), _kept_note(word, folder))
        folders.insert(0, Path(os.path.abspath(folder)))
        words.pop()
    return QueryWords(words, _each_once(folders))


def _kept_note(word: str, path: Path) -> str:
    """What is said of a last word written as a path that names no folder: it is searched as words."""
    if path.exists():
        parent = os.path.dirname(os.path.abspath(path))
        why = f"it is a file, and a search looks in folders (its own: {parent})"
    else:
        why = "no such folder"
    return f"searching for {word!r} as words: {why}; after `--` no word is read as a folder"


def _each_once(folders: list[Path]) -> list[Path]:
    return list(dict.fromkeys(folders))


def named_folders(folders: Sequence[Path]) -> str:
    """The folders, as an answer names them: `/a`, `/a and /b`, `/a, /b and /c`."""
    named = [str(folder) for folder in folders]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
