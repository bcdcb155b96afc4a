"""Multi-line private-key blocks as RE2 patterns: PEM of every label (RSA, EC, DSA, PKCS#8, ENCRYPTED, OpenSSH,
PGP armor's ``PRIVATE KEY BLOCK``, the SSH2 ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``), PuTTY key files, and a
key's base64 body whose header is gone.

A block is masked from its opening line to its closing one. A block opened and never closed (a truncated paste, a
message or a part of one that ends inside it) is masked through its body only: the header lines a format allows
right after the opening line, then the base64 lines, and nothing after the last of them. A body line is a full-length
one (PEM and PGP wrap at 64, OpenSSH and SSH2 at 70) or a shorter one that no word looks like (a digit, ``+``, ``/``
or ``=`` in it, or twice an upper-case letter after a lower-case one): the truncated last line is masked, a "Thanks"
after it is not.
A copy that flattened the lines into spaces keeps full-length runs of 40 or more and one short last run (and where a
header follows the opening line on its line, all of that line: where the header's value ends cannot be told).
"""

from __future__ import annotations

# The kind every detector here names its spans: a join of two texts reads a span of it as a block's (lines), not
# a token's (one run of characters).
BLOCK_KIND = "private-key"


def _wrappable(words: str) -> str:
    """``words`` as RE2 syntax that still matches when a terminal or a JSON string wrapped it at any character:
    a line break (or the space a flattened copy put in its place), indentation or an escaped ``\\n`` may sit
    between any two of its characters."""
    gap = r"(?:[ \t]*(?:\r?\n|(?:\\\\)*\\[nr])?[ \t]*)"
    return gap.join("[ \\t]+" if c == " " else c for c in words)


# A line break: a real one, or one escaped in a JSON string (perhaps twice), with the indentation around it.
_LINE_BREAK = r"(?:[ \t]*(?:\r?\n|(?:\\\\)*\\[nr])[ \t]*)"
_B64 = r"[A-Za-z0-9+/=]"
# a run no word looks like: a digit, "+", "/" or "=" in it, or two upper-case letters after lower-case ones ("GitHub"
# and "JavaScript" have one)
_RANDOM_RUN = rf"{_B64}*(?:[0-9+/=]|[a-z][A-Z]{_B64}*[a-z][A-Z]){_B64}*"
_BODY_LINE = rf"(?:{_B64}{{32,}}|{_RANDOM_RUN})"
_BODY = rf"(?:{_LINE_BREAK}+{_BODY_LINE}|[ \t]+{_B64}{{40,}})*(?:[ \t]+{_RANDOM_RUN})?"
# The header lines PEM (RFC 1421: Proc-Type, DEK-Info), PGP armor and SSH2 (RFC 4716) put before the body.
_PEM_HEADER = r"(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID|Subject|[Xx]-[A-Za-z0-9-]+):[^\r\n\\]*"

_LABEL = r"[A-Z0-9 \t\r\n\\]{0,48}?"
_PRIVATE_KEY = rf"{_LABEL}{_wrappable('PRIVATE KEY')}(?:[ \t]+BLOCK)?[ \t]*-*"
_BEGIN = rf"-{{4,}}[ \t]?{_wrappable('BEGIN')}{_PRIVATE_KEY}"
_END = rf"-{{2,}}[ \t]?{_wrappable('END')}{_PRIVATE_KEY}"
# Closed: anything up to the closing line but two dashes in a row, so a block never runs on through the opening line
# of another block to close with that one's end (the `(?s:` keeps the pattern with the scanner's running detectors).
_CLOSED = rf"(?s:(?:[^-]|-[^-])*?){_END}"
# (a header on the opening line's own line is a copy that flattened the block: its line is the rest of the block)
_OPEN = rf"(?:(?:{_LINE_BREAK}+|[ \t]+){_PEM_HEADER})*{_BODY}"
PEM = rf"{_BEGIN}(?:{_CLOSED}|{_OPEN})"

# The base64 body of a private key whose header is gone (cut off, or never pasted): the DER prefixes of OpenSSH
# ("openssh-key-v1"), PKCS#1 RSA, PKCS#8 and SEC1 EC private keys, then the rest of the body.
KEY_BODY = (
    rf"(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{{3}}IBA(?:AKC|DAN)|MHcCAQEEI|MIG[0-9A-Za-z+/]AgEAMBMG){_B64}*{_BODY}"
)

# A PuTTY key file: its header lines and base64 lines, up to its Private-MAC line or the body's end.
_PUTTY_HEADER = (
    r"(?:Encryption|Comment|Public-Lines|Private-Lines|Key-Derivation|Argon2-[A-Za-z]+|Private-MAC|Private-Hash)"
    r":[^\r\n\\]*"
)
# (the `(?s:` keeps the pattern with the scanner's running detectors: its lines run on)
PUTTY = rf"PuTTY-User-Key-File-\d+:(?s:[^\r\n\\]*(?:{_LINE_BREAK}+(?:{_PUTTY_HEADER}|{_BODY_LINE}))*)"
