"""Bad-input cases about file names and file identity (issue 31, items 2 and 4), written by the corpus writer.

- Names: every kind of name the OS allows — bytes that are not UTF-8, a newline, a tab, an escape sequence, a leading
  dash, a 250-byte name, glob characters, decomposed (non-NFC) Unicode, a backslash, a right-to-left override — as a
  memory note, a transcript and a SpecStory export. Each is indexed, and its neighbours with it.
- Identity: a hard link and a symlink to a sibling (one file under two names: its messages found once, one session),
  and rewrites that keep the size and put the old mtime back (`os.utime`), which `memlens reindex` must see: the
  text before the rewrite (`xm…` markers) must be gone, the text after it (`gm…`) found.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .generator import Case, _Writer

NAME_RULE = "any name the OS allows is indexed, stored and shown (escaped); its neighbours are indexed too"
ODD_NAMES: tuple[tuple[str, bytes], ...] = (
    ("name-invalid-utf8", b"n\xff\xfe.md"),
    ("name-newline", b"new\nline.md"),
    ("name-tab", b"tab\tname.md"),
    ("name-escape-sequence", b"esc\x1b[31mred.md"),
    ("name-leading-dash", b"-rf --help.md"),
    ("name-very-long", b"l" * 247 + b".md"),
    ("name-glob", b"[a-z]*?{x,y}.md"),
    ("name-non-nfc", "cafe\u0301-decomposed.md".encode()),
    ("name-backslash", b"back\\xff\\slash.md"),
    ("name-bidi-override", "\u202egnp.md".encode()),
)


def write_name_cases(writer: _Writer) -> None:
    memory = writer.corpus.workspace / "memory"
    for slug, name in ODD_NAMES:
        case = writer.case("memory", slug, f"a memory note named {name!r}", NAME_RULE)
        writer.write(case, Path(os.fsdecode(bytes(memory) + b"/" + name)), writer.note_text(case, 2).encode())
    _odd_transcript(writer, "claude-code", b"x\xff.jsonl")
    _odd_transcript(writer, "openclaw", b"tab\tand\nnewline.jsonl")
    case = writer.specstory_case("name-invalid-utf8", "an export whose name holds bytes that are not UTF-8")
    _rename(case, case.files[-1].name.encode().replace(b"name-invalid-utf8", b"caf\xe9-prompt"))
    _one_file_two_names(writer)
    _rewrites(writer)


def _rename(case: Case, name: bytes) -> None:
    old = case.files.pop()
    new = Path(os.fsdecode(bytes(old.parent) + b"/" + name))
    old.rename(new)
    case.files.append(new)


def _odd_transcript(writer: _Writer, fmt: str, name: bytes) -> None:
    from .generator import _bad_message

    case = writer.jsonl_case(
        fmt, "name-odd", f"a transcript named {name!r}", _bad_message(lambda s, o: None), NAME_RULE
    )
    _rename(case, name)


def _one_file_two_names(writer: _Writer) -> None:
    """A note and a transcript each reached by a hard link and by a symlink to a sibling."""
    from .generator import _bad_message

    memory = writer.corpus.workspace / "memory"
    case = writer.case(
        "memory", "hard-link-and-symlink", "a note with a hard link and a symlink beside it", "one file is indexed once"
    )
    note = writer.write(case, memory / f"{case.code}-note.md", writer.note_text(case, 2).encode())
    os.link(note, memory / f"{case.code}-hard.md")
    (memory / f"{case.code}-link.md").symlink_to(note.name)
    case.files += [memory / f"{case.code}-hard.md", memory / f"{case.code}-link.md"]
    case.unique += case.expected
    for fmt in ("claude-code", "codex"):
        case = writer.jsonl_case(
            fmt,
            "hard-link-and-symlink",
            "a transcript with a hard link and a symlink beside it",
            _bad_message(lambda s, o: None),
            "one file is indexed once: its messages found once, in one session",
        )
        path = case.files[-1]
        os.link(path, path.with_name(f"hard-{path.name}"))
        path.with_name(f"link-{path.name}").symlink_to(path.name)
        case.files += [path.with_name(f"hard-{path.name}"), path.with_name(f"link-{path.name}")]
        case.unique += case.expected


def _rewrites(writer: _Writer) -> None:
    """Files written with `xm…` markers where `gm…` ones belong; after the first index, rewritten in place (same
    size, mtime put back): `reindex` must show the new text only. The transcript's head stays as it was."""
    from .generator import _bad_message

    memory = writer.corpus.workspace / "memory"
    case = writer.case("memory", "rewrite-same-size-mtime", "a note rewritten keeping its size and mtime")
    writer.write(case, memory / f"{case.code}-rewritten.md", writer.note_text(case, 2).encode())
    _plan_rewrite(case, case.expected)
    case = writer.jsonl_case(
        "claude-code",
        "rewrite-same-size-mtime",
        "a transcript whose last message is rewritten keeping its size and mtime",
        _bad_message(lambda s, o: None),
    )
    _plan_rewrite(case, case.expected[-1:])


def _plan_rewrite(case: Case, markers: list[str]) -> None:
    path = case.files[-1]
    data = path.read_bytes()
    for marker in markers:
        data = data.replace(marker.encode(), b"xm" + marker[2:].encode())
        case.forbidden.append("xm" + marker[2:])
    path.write_bytes(data)

    def rewrite() -> None:
        before = path.stat()
        text = path.read_bytes()
        for marker in markers:
            text = text.replace(b"xm" + marker[2:].encode(), marker.encode())
        assert len(text) == before.st_size
        path.write_bytes(text)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    case.rewrite = rewrite
