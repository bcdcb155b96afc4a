"""A private-key block opened and never closed (a truncated paste, a message or a part of one that ends inside it) is
masked through its base64 body and nothing after it: not the words that follow in its own text, not the next
message. A block cut between two texts is masked in the second through the body lines that go on with it."""

from __future__ import annotations

import json
import random
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from claude_lines import claude_line
from memlens.redaction import redact, redact_sequence

_B64 = string.ascii_letters + string.digits + "+/"
_RANDOM = random.Random(15)
LINES = ["".join(_RANDOM.choice(_B64) for _ in range(64)) for _ in range(6)]
BODY = "\n".join(LINES)
SECRET = LINES[-2]  # a full line of the body: it must never be shown
WORDS = "Thanks, that was it."
MARK = "[REDACTED:private-key]"


def _pem(label: str, headers: str = "") -> str:
    return f"-----BEGIN {label}PRIVATE KEY-----\n{headers}{BODY}"


# Each block opened and cut off after its body's lines (the last one short, as a truncated paste leaves it).
TRUNCATED = {
    "rsa": _pem("RSA ") + "\nAb9+",
    "pkcs8": _pem(""),
    "ec": _pem("EC ") + "\nq/Zx",
    "encrypted-pem": _pem("RSA ", "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"),
    "pkcs8-encrypted": _pem("ENCRYPTED "),
    "openssh": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU" + LINES[0][:40] + "\n" + BODY,
    "pgp": "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + BODY + "\n=Xq7T",
    "ssh2": '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-2026"\n' + BODY,
    "putty": "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 2\n" + BODY,
    "body-without-header": "MIIEpAIBAAKCAQEA" + LINES[0][:48] + "\n" + BODY,
    "indented": "  " + _pem("RSA ").replace("\n", "\n  "),
    "json-escaped": _pem("").replace("\n", "\\n"),
    "flattened": _pem("RSA ").replace("\n", " "),
}


@pytest.mark.parametrize("block", TRUNCATED.values(), ids=TRUNCATED.keys())
def test_an_unclosed_block_is_masked_through_its_body_only(block: str) -> None:
    separator = " " if block == TRUNCATED["flattened"] else "\n"
    masked = redact(f"here it is:\n{block}{separator}{WORDS}\nand more words")
    assert SECRET not in masked and LINES[-1][:20] not in masked
    assert masked.endswith(f"[REDACTED:private-key]{separator}{WORDS}\nand more words"), masked


@pytest.mark.parametrize("block", TRUNCATED.values(), ids=TRUNCATED.keys())
def test_the_message_after_an_unclosed_block_is_not_masked(block: str) -> None:
    for after in (WORDS, "Done", "OK", "LGTM, merging", "GitHub rejected it"):
        first, second = redact_sequence([f"key:\n{block}", after])
        assert SECRET not in first and second == after, (first, second)


def test_a_block_never_runs_on_through_a_later_block_or_the_words_between() -> None:
    closed = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{BODY}\n-----END OPENSSH PRIVATE KEY-----"
    masked = redact(f"{TRUNCATED['rsa']}\nthat one was cut, here is the other:\n{closed}\nafter")
    assert masked == "[REDACTED:private-key]\nthat one was cut, here is the other:\n[REDACTED:private-key]\nafter"


def test_a_block_cut_between_two_parts_is_masked_in_both_up_to_its_end() -> None:
    first = f"the key:\n-----BEGIN RSA PRIVATE KEY-----\n{LINES[0]}\n{LINES[1]}"
    second = "\n".join(LINES[2:]) + "\n-----END RSA PRIVATE KEY-----\n" + WORDS
    assert redact_sequence([first, second]) == ["the key:\n[REDACTED:private-key]", f"[REDACTED:private-key]\n{WORDS}"]
    # the cut inside the opening line, as a part's hard cut leaves it
    cut = first.index("PRIVATE") + 3
    masked = redact_sequence([first[:cut], first[cut:] + "\n" + second])
    assert masked == ["the key:\n[REDACTED:private-key]", f"[REDACTED:private-key]\n{WORDS}"]


SESSION = "5a1d2c3b-4a5f-4e6d-8c7b-9a0b1c2d3e15"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memlens", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("redact_index", [True, False])
def test_indexed_session_shows_the_words_around_a_truncated_and_a_split_key(tmp_path: Path, redact_index: bool) -> None:
    """Stored masked (redactIndex on) or masked at the door (off): the same texts either way. The long message is
    cut into parts of 300 characters, so its key block is cut between parts."""
    long_key = "\n".join([*LINES, *LINES])  # twelve lines: cut between parts at least twice
    texts = [
        f"my deploy key, the paste got cut:\n{TRUNCATED['rsa']}",
        WORDS,
        f"the whole key:\n-----BEGIN RSA PRIVATE KEY-----\n{long_key}\n-----END RSA PRIVATE KEY-----\nrotate it",
        "Done",
    ]
    rows = []
    for n, text in enumerate(texts, 1):
        kind = "user" if n % 2 else "assistant"
        row = claude_line(
            kind, f"u{n}", f"u{n - 1}" if n > 1 else None, text, session=SESSION, timestamp=f"2026-03-01T10:00:0{n}Z"
        )
        rows.append(json.dumps(row) + "\n")
    folder = tmp_path / "claude"
    folder.mkdir()
    (folder / f"{SESSION}.jsonl").write_text("".join(rows))
    settings = tmp_path / "settings.json"
    chunking = {"messagePartChars": 300}
    settings.write_text(json.dumps({"privacy": {"redactIndex": redact_index}, "chunking": chunking}))
    where = ["--transcripts", str(folder), "--index-dir", str(tmp_path / "index"), "--no-embeddings"]
    where += ["--scope", "all", "--settings", str(settings)]
    assert _cli("index", *where).returncode == 0
    history = _cli("history", f"claude-code:{SESSION}", "--json", "--limit", "50", *where)
    assert history.returncode == 0, history.stderr
    # a message cut into parts shows each part's mask: one marker per part the key ran through
    shown = [
        re.sub(r"(\[REDACTED:private-key\]\n?)+(?=\[|$|\n)", MARK, m["text"])
        for m in json.loads(history.stdout)["messages"]
    ]
    assert shown == [
        "my deploy key, the paste got cut:\n[REDACTED:private-key]",
        WORDS,
        "the whole key:\n[REDACTED:private-key]\nrotate it",
        "Done",
    ]
    for query in ("rotate", "thanks", "deploy key"):  # the parts, each as a search hit
        found = _cli("search", query, "--json", "--mode", "keyword", "--no-sync", *where)
        assert found.returncode == 0, found.stderr
        assert not any(line[:16] in found.stdout for line in LINES), found.stdout
