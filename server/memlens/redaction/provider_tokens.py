"""Token formats of providers that ``patterns`` and detect-secrets do not know, each anchored on its fixed prefix.

A coding agent's transcript holds the keys of whatever the project talks to: a database host's (PlanetScale,
Neon), a registry's (Docker Hub, RubyGems, NuGet, crates.io, Clojars), a CI's (CircleCI, Sonar), a model host's
(Together, NVIDIA, Cerebras, Fireworks, Jina, ElevenLabs), a mesh VPN's (Tailscale), a payment or mail provider's.
The list was drawn up against the public rule lists of gitleaks (``config/gitleaks.toml``) and trufflehog (its
detectors); the patterns are our own, written for RE2. Each starts with a prefix no word or identifier starts with
(or else demands a digit in the rest), so a format matches only its tokens: prose and code stay readable.
"""

from __future__ import annotations

from memlens.redaction.detector import Detector

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _token(kind: str, pattern: str, *, needs_digit: bool = False, in_base64: bool = False) -> Detector:
    """A token format: the whole match is the secret, and it must not continue a word or a snake_case name (nor a
    base64 run, for a format whose prefix base64 data holds by chance: ``in_base64``)."""
    check = _has_digit if needs_digit else None
    return Detector(kind=kind, pattern=pattern, word_start=True, not_after="_+/" if in_base64 else "_", check=check)


PROVIDER_TOKENS = [
    # databases and hosting
    _token("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=\-]{32,}"),
    _token("neon-key", r"napi_[a-z0-9]{64}"),
    _token("vercel-token", r"vercel_blob_rw_[A-Za-z0-9]{16}_[A-Za-z0-9]{30}"),
    _token("vercel-token", r"vc[pikar]_[A-Za-z0-9]{24,}", needs_digit=True),  # "vcr_" starts names too
    _token("cloudflare-origin-key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    _token("alibaba-key", r"LTAI[A-Za-z0-9]{12,20}", needs_digit=True),
    _token("tencent-key", r"AKID[A-Za-z0-9]{32}", needs_digit=True),
    _token("scaleway-key", r"SCW[A-Z0-9]{17}", needs_digit=True),
    _token("yandex-key", r"AQVN[A-Za-z0-9_\-]{35,38}"),
    _token("openshift-token", r"sha256~[A-Za-z0-9_\-]{43}"),
    _token("tailscale-key", r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),
    _token("defined-networking-key", r"dnkey-[A-Za-z0-9_=\-]{26}-[A-Za-z0-9_=\-]{52}"),
    # AWS session tokens: base64 of their fixed binary header (the "Fwo" and "IQo" families)
    _token("aws-session-token", r"(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj)[A-Za-z0-9+/=]{60,}", in_base64=True),
    # registries, CI and code hosts
    _token("docker-token", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}"),
    _token("rubygems-key", r"rubygems_[a-f0-9]{48}"),
    _token("nuget-key", r"oy2[a-z0-9]{43}", needs_digit=True),
    _token("crates-token", r"cio[A-Za-z0-9]{32}", needs_digit=True),
    _token("clojars-token", r"CLOJARS_[a-z0-9]{60}"),
    _token("artifactory-token", r"cmVmd[A-Za-z0-9]{59}", needs_digit=True, in_base64=True),
    _token("circleci-token", r"CCI(?:PAT|PRJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    _token("sonar-token", r"sq[uap]_[a-f0-9]{40}"),
    _token("sourcegraph-token", r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}"),
    _token("gitlab-token", r"glffct-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,}"),
    _token("bitbucket-app-password", r"ATBB[A-Za-z0-9_=.\-]{32,}"),
    _token("harness-token", r"(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    _token("octopus-key", r"API-[A-Z0-9]{26}", needs_digit=True),
    _token("infracost-key", r"ico-[A-Za-z0-9]{32}", needs_digit=True),
    _token("readme-key", r"rdme_[a-z0-9]{70}"),
    # model and AI tool hosts
    _token("huggingface-token", r"api_org_[A-Za-z]{34}"),
    _token("together-key", r"tgp_v1_[A-Za-z0-9_\-]{40,}"),
    _token("nvidia-key", r"nvapi-[A-Za-z0-9_\-]{64}"),
    _token("cerebras-key", r"csk-[a-z0-9]{48}", needs_digit=True),
    _token("fireworks-key", r"fw_[A-Za-z0-9]{24,}", needs_digit=True),
    _token("jina-key", r"jina_[a-f0-9]{32}[A-Za-z0-9_\-]{20,}"),
    _token("firecrawl-key", r"fc-[a-f0-9]{32}", needs_digit=True),
    _token("e2b-key", r"e2b_[a-f0-9]{40}"),
    _token("elevenlabs-key", r"sk_[a-f0-9]{48}"),
    _token("posthog-key", r"phx_[A-Za-z0-9]{40,}"),
    # secret stores
    _token(
        "1password-secret-key",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    _token("bitwarden-token", rf"0\.{_UUID}\.[A-Za-z0-9]{{30}}:[A-Za-z0-9+/]{{22,24}}={{0,2}}"),
    _token("infisical-token", rf"st\.{_UUID}\.[a-f0-9]{{32}}\.[a-f0-9]{{32}}"),
    # payments, mail, messaging, social
    _token("stripe-key", r"(?:sk|rk)_prod_[A-Za-z0-9]{16,}"),
    _token("plaid-token", rf"access-(?:sandbox|development|production)-{_UUID}"),
    _token("braintree-token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    _token("shippo-token", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    _token("duffel-token", r"duffel_(?:test|live)_[A-Za-z0-9_=\-]{43}"),
    _token("easypost-key", r"EZ[AT]K[A-Za-z0-9]{54}"),
    _token("flutterwave-key", r"FLWSECK(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?", needs_digit=True),
    _token("resend-key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", needs_digit=True),
    _token("brevo-key", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _token("slack-webhook", r"https://hooks\.slack\.com/triggers/[A-Za-z0-9_/]{20,}"),
    _token("hubspot-token", rf"pat-(?:na|eu|ap)[0-9]-{_UUID}"),
    _token("clickup-token", r"pk_[0-9]{6,10}_[A-Z0-9]{32}"),
    _token("typeform-token", r"tfp_[A-Za-z0-9_.=\-]{59}"),
    _token("linear-key", r"lin_oauth_[a-f0-9]{64}"),
    _token("facebook-token", r"EAA[A-Za-z0-9]{100,}", needs_digit=True, in_base64=True),
    _token("twitter-bearer-token", r"A{22}[A-Za-z0-9%]{80,}", needs_digit=True, in_base64=True),
    _token("firebase-server-key", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{130,}", in_base64=True),
    _token("google-oauth-token", r"1//0[A-Za-z0-9_\-]{40,}", needs_digit=True, in_base64=True),
    _token("dropbox-token", r"sl\.[A-Za-z0-9_=.\-]{130,}", needs_digit=True),
    _token("adobe-secret", r"p8e-[A-Za-z0-9]{32}", needs_digit=True),
    _token("frameio-token", r"fio-u-[A-Za-z0-9_=\-]{64}"),
    _token("scalingo-token", r"tk-us-[A-Za-z0-9_\-]{48}"),
    _token("settlemint-token", r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}", needs_digit=True),
    # Grafana's legacy API keys: base64 of '{"k":"…', with no dots, so no JWT
    _token("grafana-token", r"eyJrIjoi[A-Za-z0-9+/]{50,}={0,2}", in_base64=True),
    # GitLab's session cookie, named on its own (a cookie detector reads only Cookie: headers)
    Detector(kind="gitlab-token", pattern=r"\b_gitlab_session=(?P<value>[0-9a-z]{32})", secret_groups=("value",)),
]
