"""Judge whether a captured value is a secret or a placeholder, a word, a code reference or a path.

Assignment-style detectors (``KEY=…``, ``"…password…": "…"``, ``--password …``, ``password is …``) capture
whatever follows the key; the key is evidence of different strength, so the value must pass a gate of matching
strictness. Randomness is detect-secrets' Shannon entropy over its base64 alphabet, so our threshold means the
same as that library's high-entropy plugins; it is computed here rather than imported, because importing the
plugin pulls in ``requests`` and costs a keyword search about 60 ms of start-up (a test holds the two equal).
"""

from __future__ import annotations

import math
import re
import string
from enum import Enum


class Evidence(Enum):
    """How strongly the text around a value says that the value is a secret."""

    STRONG = "strong"  # "password=", "Authorization:", "--password": anything but a placeholder or code is secret
    KEY = "key"  # "api_key=", "token:": a generated key, so a plain word or a code identifier is not one
    PROSE = "prose"  # "the password is …", "Bearer …": a plain lowercase word is prose, not a secret
    WEAK = "weak"  # "SOME_KEY=", "DB_PASS=": only random-looking values are secrets


# detect-secrets' Base64HighEntropyString charset: base64, its url-safe variant (and a backslash) and padding
BASE64_CHARSET = string.ascii_letters + string.digits + "+/" + "\\-_" + "="
MIN_ENTROPY = 3.0  # bits per character; detect-secrets flags base64 strings from 4.5, we gate shorter values

# Values that stand for a secret without being one, the answer to a question about a key's type, or code.
_HARMLESS_WORDS = frozenset(
    {"", "none", "null", "nil", "true", "false", "yes", "no", "on", "off", "required", "optional", "string", "str"}
    | {"undefined", "redacted", "the", "a", "an", "is", "|", ">", "|-", ">-", "...", "…", "bearer", "basic"}
    | {"password", "passwd", "pass", "secret", "token", "key", "apikey", "api_key", "example", "changeme", "env"}
    | {"int", "bool", "bytes", "dict", "list", "any", "object", "number", "text", "value", "empty", "unset", "tbd"}
    | {"await", "new", "this", "self", "function", "return", "os", "process", "request", "req", "config", "input"}
    | {"f", "b", "r", "u", "rb", "br", "fr", "rf"}  # a Python string's prefix: 'f"Bearer {token}"'
    | {"settings", "options", "opts", "args", "params", "data", "response", "res", "ctx", "context", "typeof"}
)
_PLACEHOLDER = re.compile(
    r"\$\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*"  # $VAR, ${VAR}, ${VAR:-default}
    r"|\$\(.*|\$|%|`.*`"  # $(command), `command`, the "%" of a cut "%(name)s"
    r"|%[A-Za-z_][A-Za-z0-9_]*%"  # %VAR%
    r"|<[^<>]*>|\[[^\[\]]*\]|\(\w*\)"  # <your-key>, [REDACTED:kind], [token]
    r"|\$?\{\{.*\}\}|\{[A-Za-z_][A-Za-z0-9_.]*\}"  # {{ template }}, {name}
    r"|[*•xX.…_\-#=]+"  # ****, xxxx, ..., the second "=" of "token == other"
    r"|.*(?:\.\.\.|…)|.*redacted.*"  # elided examples ("sk-..."), earlier redactions by anyone
    r"|[A-Za-z_]+(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?"  # process.env.API_KEY, settings.token
    r"|[A-Za-z_][A-Za-z0-9_]*\(\)"  # get_token()
    r"|(?:your|my)[_\-\s][A-Za-z_\-\s]*"  # your-api-key, my_secret
    # format strings: "%s", "%(token)s", "%H:%M:%S", "%Y-%m-%dT%H", "{}", "{0}"
    r"|(?:[^%\s]{0,3}%(?:\([A-Za-z_]\w*\))?[-#0-9. +]*[A-Za-z])+[^%\s]{0,3}|\{\d*\}",
    re.IGNORECASE,
)
# Code names, checked case-sensitively: an UPPER_SNAKE constant, a camelCase identifier without digits whose
# words read as words (``camel_words``).
_UPPER_SNAKE = re.compile(r"[A-Z][A-Z]*(?:_[A-Z]+)+")
# and PascalCase. Written without a repeat inside a repeat: `(?:[A-Z][A-Za-z]*)+` read "aBBB…B1" in 2^n ways before
# failing (30 capitals cost 30 s), and a value after `password=` is any text a transcript holds
_CAMEL_CASE = re.compile(r"[A-Za-z][a-z]+[A-Z][A-Za-z]*|[a-z][A-Z][A-Za-z]*")
# The words of a camelCase name: its first lowercase run, then each capital with the lowercase run after it
_WORD = re.compile(r"^[a-z]+|[A-Z][a-z]+")
_TWO_LETTER_WORDS = frozenset(
    {"as", "at", "be", "by", "db", "do", "go", "id", "if", "in", "io", "is", "js", "me", "my", "no", "of", "ok"}
    | {"on", "or", "os", "so", "to", "ts", "ui", "up", "us", "we"}
)
_UPPER_RUN = re.compile(r"[A-Z]+")
_VOWELS = frozenset("aeiouy")
_CAPITALS = string.ascii_uppercase
# Words of code without a vowel ("csrfToken", "xmlHttpRequest", "srcPath"): a random run rarely spells one
_ABBREVIATIONS = frozenset(
    {"btn", "cb", "cfg", "cmd", "cnt", "csrf", "css", "ctx", "db", "dns", "dst", "fn", "grpc", "html", "http", "https"}
    | {"img", "js", "jwt", "lbl", "len", "lst", "mgr", "msg", "nm", "num", "pkg", "ptr", "pwd", "rpc", "src", "sql"}
    | {"ssh", "ssl", "std", "str", "svg", "tcp", "tls", "tmp", "ts", "txt", "xml", "xhr", "ws", "wss", "hdr", "req"}
)
_LONGEST_ACRONYM = 5  # "HTTPS", "parseJSON", "HTTPServer"
# "sk-ant-": a prefix, no token; "authorization_uri=": a parameter's name
_LOWERCASE_WORDS = re.compile(r"[a-z]+(?:[-_.' ][a-z]+)*[-_]?[.,;:!?=]?")
_PATH = re.compile(r"(?:~|\.{0,2})/\S*|[A-Za-z]:\\.*")
_SHORT_NUMBER = re.compile(r"\d{1,5}")
_JOINED_WORDS = re.compile(r"[a-z]+(?:-[a-z]+){3,}[.,;:!?]?")  # "correct-horse-battery-staple": a passphrase's shape
_LONGEST_PLACEHOLDER = 200
_HEX_OR_UUID = re.compile(
    r"[0-9a-f]+|[0-9A-F]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def is_placeholder(value: str) -> bool:
    """Empty, a stand-in (``$VAR``, ``<your-key>``, ``***``, an earlier marker), a constant's name or a word like
    ``true``."""
    stripped = value.strip().strip("\"'`")
    if len(stripped) > _LONGEST_PLACEHOLDER:
        return False
    if stripped.lower() in _HARMLESS_WORDS or stripped.rstrip(".,;:!?").lower() in _HARMLESS_WORDS:  # "None:"
        return True
    if _UPPER_SNAKE.fullmatch(stripped) and len(stripped) <= 40:
        return True
    return _PLACEHOLDER.fullmatch(stripped) is not None


# A name ending in one of these names a secret ("addPassword: addPassword", "startAuthorization"), it is none
_NAMES_OF_SECRETS = ("password", "passwd", "passphrase", "authorization", "secret", "token", "key", "credentials")


def is_code_name(value: str) -> bool:
    """A camelCase or PascalCase name of code (``userPassword``, ``EllipticCurvePublicKey``): see camel_words."""
    stripped = value.strip().strip("\"'`")
    return len(stripped) <= 40 and camel_words(stripped)


def camel_words(value: str) -> bool:
    """A camelCase name a person wrote (``userPassword``, ``parseJSON``, ``apiKeyFromEnv``), not random letters.

    Letters drawn at random are as often capitals as not, so their lowercase runs are short and often without a
    vowel (``iwBxfZCGGQccOi``). A written name's words read as words: at least two thirds of them have a vowel
    among their lowercase letters or are a known abbreviation (``csrf``, ``Mgr``), a two-letter word after the first
    is a common one (``Id``, ``Or``, ``By``), and its acronyms are short. Measured on 14,502 camelCase identifiers
    of real code (Python and JavaScript packages) and 50,000 random letter strings of 8-40 characters: 93.9 % of the
    identifiers pass, 3.0 % of the random strings (8.1 % of those up to 16 characters; every one passed before this
    rule). An identifier that fails is masked where it stands after a secret's key, the side to err on."""
    if _CAMEL_CASE.fullmatch(value) is None:
        return False
    if max((len(run) for run in _UPPER_RUN.findall(value)), default=0) > _LONGEST_ACRONYM:
        return False
    words = _WORD.findall(value)
    if any(len(word) == 2 and word.lower() not in _TWO_LETTER_WORDS for word in words[1:]):
        return False
    words = words[:1] + [word for word in words[1:] if len(word) > 2]  # "Id", "Or" passed above
    # a vowel among the lowercase letters: a capital vowel is as likely in random letters as in a name
    voiced = sum(
        1 for word in words if not _VOWELS.isdisjoint(word.lstrip(_CAPITALS)) or word.lower() in _ABBREVIATIONS
    )
    return 3 * voiced >= 2 * len(words)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character over the base64 alphabet (detect-secrets' measure, term for term)."""
    if not value:
        return 0.0
    total = 0.0
    for char in BASE64_CHARSET:
        share = float(value.count(char)) / len(value)
        if share > 0:
            total += -share * math.log(share, 2)
    return total


def looks_random(value: str) -> bool:
    """Long, of mixed letters and digits or cases, not hex or a UUID, and of high entropy: a generated key."""
    if len(value) < 8 or _PATH.fullmatch(value) or _HEX_OR_UUID.fullmatch(value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value)))
    long_enough = len(value) >= 16 or classes == 3  # "build-cache-v2" is a name, "Xk3#p9Lq" a password
    return classes >= 2 and long_enough and entropy(value) >= MIN_ENTROPY


_LONG_HEX = re.compile(r"[0-9a-fA-F]{32,}")
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")


def is_generated(value: str) -> bool:
    """A machine-made key: 32+ hex digits, or a long base64 run of high entropy (not a word, path, name or
    placeholder)."""
    if is_placeholder(value) or is_code_name(value):
        return False
    if _LONG_HEX.fullmatch(value):
        return len(set(value.lower())) >= 8  # "0000…" and "deadbeef…" repeated are fillers
    return _BASE64.fullmatch(value) is not None and looks_random(value)


def is_secret_value(value: str, evidence: Evidence) -> bool:
    """Whether ``value``, found after a key of the given evidence, should be masked."""
    if is_placeholder(value):
        return False
    if evidence is Evidence.STRONG:  # a passphrase may be words run together: "correctHorseBatteryStaple"
        return not (is_code_name(value) and value.strip("\"'`").lower().endswith(_NAMES_OF_SECRETS))
    if is_code_name(value):
        return False
    if evidence is Evidence.KEY:
        return _LOWERCASE_WORDS.fullmatch(value) is None and _SHORT_NUMBER.fullmatch(value) is None
    if evidence is Evidence.PROSE:
        if _JOINED_WORDS.fullmatch(value):
            return True  # "the password is correct-horse-battery-staple"; prose joins two or three ("hard-coded")
        return len(value) >= 4 and _LOWERCASE_WORDS.fullmatch(value) is None and _SHORT_NUMBER.fullmatch(value) is None
    return looks_random(value)
