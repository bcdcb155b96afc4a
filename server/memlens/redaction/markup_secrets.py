"""Secrets in markup and structured config, where the name and the value are not `key = value`: an XML element's
text (Maven's `<password>…</password>`), a key/value pair of attributes (.NET's `<add key="ApiSecret" value="…"/>`,
NuGet's `ClearTextPassword`, Spring's `<property name="password" value="…"/>`), and a JSON parameter whose value
sits in an object of its own (an ARM template's `"adminPassword": {"value": "…"}`).

An agent reads and writes these files, and its transcript keeps what it read. The name must say the value is a secret,
with the same endings and the same evidence as `patterns`' assignments: a password may be any word, a key or token
must look generated; a reference (`${env.PW}`, `{{ secret }}`) is no secret.
"""

from __future__ import annotations

from memlens.redaction.detector import Detector
from memlens.redaction.patterns import KEY_ENDINGS, PASSWORD_ENDINGS, kind_of_key
from memlens.redaction.values import Evidence

_NAME = r"[A-Za-z0-9_.:\-]*"
_ENDINGS = ((PASSWORD_ENDINGS, Evidence.STRONG), (KEY_ENDINGS, Evidence.KEY))


def _named(pattern: str, groups: tuple[str, ...] = ("value",)) -> list[Detector]:
    """One detector for each strength of ending; `pattern` holds `{key}` where the name goes, `groups` the value."""
    return [
        Detector(
            kind="secret",
            pattern=pattern.replace("{key}", rf"(?P<key>{_NAME}(?i:{endings}))"),
            secret_groups=groups,
            evidence=evidence,
            kind_of_key=kind_of_key,
        )
        for endings, evidence in _ENDINGS
    ]


MARKUP_DETECTORS = [
    # <password>PW</password>, <ns:apiToken>…</ns:apiToken>: the element's text up to its closing tag
    *_named(r"<{key}>[ \t]*(?P<value>[^<\s](?:[^<\n]*[^<\s])?)[ \t]*</"),
    # <add key="ApiSecret" value="…"/>, <property name="db.password" value='…'/>, <entry key="token">…
    *_named(
        r"\b(?:key|name)[ \t]*=[ \t]*[\"']{key}[\"'][ \t]+value[ \t]*=[ \t]*"
        r"(?:\"(?P<value>[^\"\n]*)\"|'(?P<value_sq>[^'\n]*)')",
        ("value", "value_sq"),
    ),
    # "adminPassword": {"value": "…"}, "apiToken": { "type": "securestring", "value": "…" }
    *_named(
        r"\"{key}\"[ \t]*:[ \t]*\{(?:[ \t\r\n]*\"(?:type|metadata|description)\"[ \t]*:[ \t]*\"[^\"\n]*\"[ \t]*,)?"
        r"[ \t\r\n]*\"value\"[ \t]*:[ \t]*\"(?P<value>[^\"\n]*)\""
    ),
]
