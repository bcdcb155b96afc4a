"""Detectors taken from Yelp's detect-secrets: every RegexBasedDetector plugin's published ``denylist``.

The patterns are read from the installed library at import time, so a newer detect-secrets brings its new
formats with it. They are written for Python's ``re``; to run them on RE2 (linear time, one pass for all) their
lookaround assertions are dropped and repetition counts above RE2's limit are left open. Both changes can only
widen a match, so they can make redaction mask more, never less. A pattern RE2 still rejects is skipped and
listed in ``SKIPPED`` (the benchmark prints it).

Importing detect-secrets' plugins pulls in ``requests`` (about 60 ms of a command's start-up), so the converted
patterns are kept in a cache file (``redaction_cache``) keyed by the installed detect-secrets files, re2 and this
module; a command then reads them back without importing the library. A missing, stale or unreadable cache is
rebuilt from the library, never skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import re2

from memlens.redaction import redaction_cache
from memlens.redaction.detector import Detector

# The marker kind for each detect-secrets secret type; a type not listed here gets a slug of its name.
_KINDS = {
    "AWS Access Key": "aws-access-key",
    "Artifactory Credentials": "artifactory-token",
    "Azure Storage Account access key": "azure-key",
    "Basic Auth Credentials": "url-password",
    "Cloudant Credentials": "cloudant-key",
    "Discord Bot Token": "discord-token",
    "GitHub Token": "github-token",
    "GitLab Token": "gitlab-token",
    "IBM COS HMAC Credentials": "ibm-key",
    "IBM Cloud IAM Key": "ibm-key",
    "JSON Web Token": "jwt",
    "Mailchimp Access Key": "mailchimp-key",
    "NPM tokens": "npm-token",
    "OpenAI Token": "openai-key",
    "Private Key": "private-key",
    "PyPI Token": "pypi-token",
    "SendGrid API Key": "sendgrid-key",
    "Slack Token": "slack-token",
    "SoftLayer Credentials": "softlayer-key",
    "Square OAuth Secret": "square-token",
    "Stripe Access Key": "stripe-key",
    "Telegram Bot Token": "telegram-token",
    "Twilio API Key": "twilio-key",
}
# Not secrets: an IP address is no credential.
_NOT_SECRETS = frozenset({"Public IP (ipv4)"})

_LOOKAROUND = re.compile(r"\(\?<?[=!][^()]*\)")
_LARGE_REPEAT = re.compile(r"\{(\d+),(\d{4,})\}")

SKIPPED: list[str] = []


def _kind(secret_type: str) -> str:
    return _KINDS.get(secret_type) or re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _for_re2(pattern: re.Pattern[str]) -> str:
    source = _LARGE_REPEAT.sub(r"{\1,}", _LOOKAROUND.sub("", pattern.pattern))
    return f"(?i){source}" if pattern.flags & re.IGNORECASE else source


def _compiles(pattern: str) -> bool:
    options = re2.Options()
    options.log_errors = False
    try:
        re2.compile(pattern, options)
    except re2.error:
        return False
    return True


def library_detectors() -> list[Detector]:
    """One detector per denylist pattern of each regex-based detect-secrets plugin (from the cache when it is fresh)."""
    key = redaction_cache.cache_key(__file__)
    cached = redaction_cache.load(key)
    if cached is not None:
        patterns, skipped = cached
    else:
        patterns, skipped = _convert_library()
        redaction_cache.store(key, patterns, skipped)
    SKIPPED[:] = skipped
    return [Detector(kind=kind, pattern=pattern, from_library=True) for kind, pattern in patterns]


def _convert_library() -> tuple[list[tuple[str, str]], list[str]]:
    """(kind, RE2 pattern) for every usable denylist pattern, and the patterns RE2 rejects."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector

    patterns: list[tuple[str, str]] = []
    skipped: list[str] = []
    plugins: Mapping[str, type[BasePlugin]] = get_mapping_from_secret_type_to_class()
    for secret_type, plugin in sorted(plugins.items()):
        if secret_type in _NOT_SECRETS or not issubclass(plugin, RegexBasedDetector):
            continue
        denylist: Iterable[re.Pattern[str]] = getattr(plugin, "denylist", ())  # a class attribute of each plugin
        for pattern in denylist:
            source = _for_re2(pattern)
            if not _compiles(source):
                skipped.append(f"{secret_type}: {pattern.pattern}")
                continue
            patterns.append((_kind(secret_type), source))
    return patterns, skipped
