"""Mask secrets (API keys, tokens, private keys, passwords) in text before it is shown or stored in excerpts.

``redact`` runs one precompiled alternation over the text. Apart from two literal-prefixed formats, every
alternative sits behind one shared lookbehind that lets it start only at the beginning of a word, and
its runs are possessive or bounded by a character class the next token cannot match, so the scan stays
linear in the text's length.

What is masked, as ``[REDACTED:<kind>]``:

* well-known token formats, anywhere: OpenAI/Anthropic ``sk-…``, AWS ``AKIA…``/``ASIA…``, GitHub
  ``ghp_…``/``github_pat_…``, GitLab ``glpat-…``, Slack ``xox?-…`` and webhooks, Stripe, Google
  ``AIza…``, Hugging Face ``hf_…``, npm ``npm_…``, JWTs ``eyJ….….…``;
* PEM private-key blocks, BEGIN to END, or BEGIN to the end of the text when END is missing;
* the value of an assignment whose key ends in password/passwd/passphrase/secret/token/api key/access
  key/private key (``DB_PASSWORD=…``, ``"token": "…"``, ``X-Api-Key: …``), of ``Authorization: <scheme>
  …`` and of ``Bearer <token>``; the key, the quotes and the scheme are kept;
* the password of a ``scheme://user:password@host`` URL.

Assignment values that are plainly not secrets stay: empty values, ``$VAR``/``${VAR}``, ``<placeholder>``,
``{{ template }}``, ``***`` masks, earlier ``[REDACTED:…]`` markers and a few words such as ``true`` or
``none``. Ordinary prose (``sk-learn``, ``task-runner``, "the token is expired") is left alone.
"""

from __future__ import annotations

import re

# Formats recognised wherever they start.
_ANYWHERE_PATTERNS: dict[str, str] = {
    "private-key": (
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?s:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)"
    ),
    "slack-webhook": r"https://hooks\.slack\.com/services/T[A-Za-z0-9_/]{20,}",
}

# Formats recognised only at the start of a word (see _WORD_START).
_TOKEN_PATTERNS: dict[str, str] = {
    "anthropic-key": r"sk-ant-[A-Za-z0-9_\-]{20,}",
    "stripe-key": r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    "openai-key": r"sk-(?=[A-Za-z_\-]*+[0-9])(?=[0-9_\-]*+[A-Za-z])[A-Za-z0-9_\-]{20,}",
    "aws-access-key": r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
    "github-token": r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
    "gitlab-token": r"glpat-[A-Za-z0-9_\-]{20,}",
    "slack-token": r"(?:xox[abposre]|xapp)-(?=[A-Za-z\-]*+[0-9])[A-Za-z0-9\-]{10,}",
    "google-api-key": r"AIza[A-Za-z0-9_\-]{35}(?![A-Za-z0-9_\-])",
    "huggingface-token": r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])",
    "npm-token": r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])",
    "jwt": r"eyJ[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]{10,}+\.[A-Za-z0-9_\-]*",
}

# Not preceded by a character that can occur inside a key name or token; checked once for all of them.
_WORD_START = r"(?<![A-Za-z0-9_.\-])"

# A key whose name ends in one of these (case-insensitive) has a secret value: "DB_PASSWORD", "X-Api-Key".
_SECRET_KEY_ENDINGS = (
    "password|passwd|passphrase|secret|secret[_-]key|secretkey|token"
    "|api[_-]key|apikey|access[_-]key|accesskey|private[_-]key|privatekey"
)
_SECRET_KEY = (
    r"(?i:(?P<key>[A-Za-z0-9_.\-]++)(?:"
    + "|".join(f"(?<={ending})" for ending in _SECRET_KEY_ENDINGS.split("|"))
    + "))"
)
# A value after "key =" / "key:": quoted (", ', `, or JSON-escaped \"), a ${VAR} / {{ template }} reference
# (kept), or a bare run of characters.
_VALUE = (
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\""
    r"|'(?P<sq>[^'\n]*+)'"
    r"|`(?P<bq>[^`\n]*+)`"
    r"|\\\"(?P<eq>[^\"\\\n]*+)\\\""
    r"|(?P<ref>\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$?\{\{[^{}\n]*\}\})"
    r"|(?P<bare>(?!-----BEGIN)[^\s'\"`,;&<>\\(){}\]]++))"
)
_QUOTE = r"(?:\\?[\"'`]|\*\*)?"
_ASSIGNMENT = rf"{_SECRET_KEY}{_QUOTE}[ \t]*(?::=|=>|[:=])[ \t]*(?:\*\*[ \t]*)?{_VALUE}"
_AUTH_SCHEME = r"(?i:bearer|basic|token|bot|digest)"
_AUTHORIZATION = (
    r"(?i:(?:proxy-)?authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
    rf"(?:{_AUTH_SCHEME}[ \t]+|(?!{_AUTH_SCHEME}\b))(?P<auth>[^\s'\"`,;<>\\]++)"
)
_BEARER = r"Bearer[ \t]+(?=[A-Za-z._~+/\-]*+[0-9])(?P<bearer>[A-Za-z0-9._~+/\-]{16,}=*)"
_URL_PASSWORD = r"[A-Za-z][A-Za-z0-9+.\-]*+://[^\s:/@]++:(?P<urlpw>[^\s/@]++)(?=@)"


def _named(prefix: str, patterns: dict[str, str]) -> list[str]:
    return [f"(?P<{prefix}{kind.replace('-', '_')}>{pattern})" for kind, pattern in patterns.items()]


_WORD_START_ALTERNATIVES = _named("tok_", _TOKEN_PATTERNS) + [
    f"(?P<assign>{_ASSIGNMENT})",
    f"(?P<authz>{_AUTHORIZATION})",
    f"(?P<bearertok>{_BEARER})",
    f"(?P<url>{_URL_PASSWORD})",
]
_SECRET_RE = re.compile(
    "|".join(_named("tok_", _ANYWHERE_PATTERNS) + [f"{_WORD_START}(?:{'|'.join(_WORD_START_ALTERNATIVES)})"])
)

_VALUE_GROUPS = ("dq", "sq", "bq", "eq", "ref", "bare")
_KIND_BY_ENDING = (
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("token", "token"),
    ("apikey", "api-key"),
    ("accesskey", "access-key"),
    ("secret", "secret"),
    ("secretkey", "secret"),
)
_NOT_SECRET_WORDS = frozenset(
    {"", "none", "null", "nil", "true", "false", "yes", "no", "required", "optional", "string", "str"}
    | {"undefined", "redacted", "the", "a", "an", "is", "|", ">", "|-", ">-", "...", "…"}
)
_PLACEHOLDER_RE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^<>]*>|\$?\{\{.*\}\}|\*+|\[REDACTED:[a-z\-]+\]?")


def redact(text: str) -> str:
    """Return ``text`` with every secret this module recognises replaced by ``[REDACTED:<kind>]``."""
    return _SECRET_RE.sub(_replace, text)


def _replace(match: re.Match[str]) -> str:
    group = match.lastgroup
    if group is not None and group.startswith("tok_"):
        return _marker(group.removeprefix("tok_").replace("_", "-"))
    if group == "assign":
        return _replace_assignment(match)
    if group == "authz":
        if _looks_harmless(match.group("auth")):
            return match.group(0)
        return _replace_value(match, "auth", "authorization")
    if group == "bearertok":
        return _replace_value(match, "bearer", "bearer-token")
    return _replace_value(match, "urlpw", "url-password")


def _replace_assignment(match: re.Match[str]) -> str:
    value_group = next(name for name in _VALUE_GROUPS if match.group(name) is not None)
    if _looks_harmless(match.group(value_group)):
        return match.group(0)
    return _replace_value(match, value_group, _assignment_kind(match.group("key")))


def _assignment_kind(key: str) -> str:
    """The marker kind for a key that ends in one of _SECRET_KEY_ENDINGS."""
    key = key.lower().replace("_", "").replace("-", "")
    for ending, kind in _KIND_BY_ENDING:
        if key.endswith(ending):
            return kind
    return "private-key"


def _looks_harmless(value: str) -> bool:
    return value.lower() in _NOT_SECRET_WORDS or _PLACEHOLDER_RE.fullmatch(value) is not None


def _replace_value(match: re.Match[str], group: str, kind: str) -> str:
    """The whole match, with only the span of ``group`` replaced by the marker."""
    offset = match.start()
    start, end = match.span(group)
    whole = match.group(0)
    return f"{whole[: start - offset]}{_marker(kind)}{whole[end - offset :]}"


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"
