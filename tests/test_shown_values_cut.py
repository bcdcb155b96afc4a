"""A value an error quotes is cut short (a settings value, a request's field or unknown key, a server's setting):
the cut falls before a secret it would run through, so the masking every error gets when it is shown still knows
the secret (a token cut short is no token, and one ending in "..." reads as an elided example)."""

from __future__ import annotations

import pytest

from memlens.errors import MemlensError
from memlens.requests import SearchRequest
from memlens.requests.fields import parse
from memlens.settings.values import show
from planted_secrets import PLANTED, Planted, leaked_fragments

# long tokens a 40- or 57-character cut runs through
LONG = [p for p in PLANTED if p.kind in {"anthropic-key", "openai-key", "github-fine-grained-pat", "slack-user-token"}]


@pytest.mark.parametrize("item", LONG, ids=lambda p: p.kind)
def test_a_long_value_quoted_by_an_error_shows_no_piece_of_its_secret(item: Planted) -> None:
    shown = [show(f"pasted {item.secret} here")]
    for raw in ({"query": "x", "limit": f"pad {item.secret}"}, {"query": "x", f"pad {item.secret}": 1}):
        with pytest.raises(MemlensError) as raised:
            parse(SearchRequest, raw)
        shown.append(str(raised.value))
    assert "pad" in shown[1] and "pad" in shown[2]  # the value and the key were quoted
    assert leaked_fragments("\n".join(shown), length=6, planted=[item]) == []


def test_a_short_value_is_quoted_whole() -> None:
    assert show("a" * 60) == repr("a" * 60) and show("b" * 70) == repr("b" * 57 + "...")
