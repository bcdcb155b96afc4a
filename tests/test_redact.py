"""Tests for secret redaction: a corpus of well-formed fake secrets, false positives, mixed text, speed."""

from __future__ import annotations

import base64
import json

import pytest

from adversarial_text import ADVERSARIAL
from memlens.redaction import find_secrets, marker, redact
from planted_secrets import CONTEXTS, PLANTED, Planted, leaked

# Fake secrets are assembled at run time so that no complete token-shaped literal sits in the repository.
_MIXED = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC2"
_UPPER = "Q7XK5NY3FUZ4JQ2LW8RT"


def fake(length: int, alphabet: str = _MIXED) -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


def b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


JWT = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "1234567890", "iat": 1516239022}), fake(43)])
RSA_BODY = "\n".join(fake(64, _MIXED + "+/") for _ in range(5))
RSA_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{RSA_BODY}\n-----END RSA PRIVATE KEY-----"
SSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAA" + fake(40)
SSH_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_BODY}\n-----END OPENSSH PRIVATE KEY-----"
PKCS8_JSON_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + fake(40)

# (text containing the secret, the secret value that must disappear, the marker kind that must appear)
CORPUS: list[tuple[str, str, str]] = [
    (f"OPENAI_KEY {'sk-' + fake(48)}", "sk-" + fake(48), "openai-key"),
    (f"key: {'sk-proj-' + fake(40) + '_' + fake(40)}", fake(40) + "_" + fake(40), "openai-key"),
    (f"use {'sk-proj-' + fake(40) + '-' + fake(20)} here", "sk-proj-" + fake(40), "openai-key"),
    (f"svc {'sk-svcacct-' + fake(60)}", "sk-svcacct-" + fake(60), "openai-key"),
    (
        f"claude {'sk-ant-api03-' + fake(80) + '-' + fake(10) + 'AA'}",
        "sk-ant-api03-" + fake(80),
        "anthropic-key",
    ),
    ("aws id AKIA" + _UPPER[:16] + " in env", "AKIA" + _UPPER[:16], "aws-access-key"),
    ("session ASIA" + _UPPER[4:20] + ".", "ASIA" + _UPPER[4:20], "aws-access-key"),
    (f"pat {'ghp_' + fake(36)}", "ghp_" + fake(36), "github-token"),
    (f"oauth {'gho_' + fake(36)}", "gho_" + fake(36), "github-token"),
    (f"server {'ghs_' + fake(36)}", "ghs_" + fake(36), "github-token"),
    (f"user {'ghu_' + fake(36)}", "ghu_" + fake(36), "github-token"),
    (f"fine-grained {'github_pat_' + fake(22) + '_' + fake(59)}", fake(22) + "_" + fake(59), "github-token"),
    (f"gitlab {'glpat-' + fake(20)}", "glpat-" + fake(20), "gitlab-token"),
    (f"bot {'xoxb-' + '1234567890123-1234567890123-' + fake(24)}", fake(24), "slack-token"),
    (f"user {'xoxp-' + '1234567890123-1234567890123-1234567890123-' + fake(32)}", fake(32), "slack-token"),
    (f"app {'xoxa-2-' + '1234567890123-' + fake(30)}", fake(30), "slack-token"),
    (f"refresh {'xoxr-' + '1234567890-' + fake(30)}", fake(30), "slack-token"),
    (f"legacy {'xoxs-' + '1234567890-' + fake(30)}", fake(30), "slack-token"),
    (
        f"hook {'https://hooks.slack.com/services/T0' + fake(8) + '/B0' + fake(8) + '/' + fake(24)}",
        fake(24),
        "slack-webhook",
    ),
    (f"stripe {'sk_live_' + fake(24)}", "sk_live_" + fake(24), "stripe-key"),
    (f"maps {'AIza' + fake(35)}", "AIza" + fake(35), "google-api-key"),
    (f"hub {'hf_' + fake(34)}", "hf_" + fake(34), "huggingface-token"),
    (f"registry {'npm_' + fake(36)}", "npm_" + fake(36), "npm-token"),
    # a newer, longer format than the pattern's fixed length: the tail goes too (a Discord token's HMAC of 38)
    (f"bot {'MTA4NzY1NDMyMTA5ODc2NTQzMg.' + fake(6) + '.' + fake(27) + 'Tail-of_38'}", "Tail-of_38", "discord-token"),
    (f"registry {'npm_' + fake(36) + 'Tail4U'}", "Tail4U", "npm-token"),
    (f"doppler {'dp.st.dev.' + fake(44)}", fake(44), "doppler-token"),
    (f"doppler {'dp.pt.' + fake(43)}", fake(43), "doppler-token"),
    (f"session cookie {JWT} was logged", JWT.split(".")[1], "jwt"),
    (f"key file:\n{RSA_KEY}\nend of note", RSA_BODY.split("\n")[2], "private-key"),
    (f"deploy key\n{SSH_KEY}\n", SSH_BODY, "private-key"),
    (f"truncated paste:\n-----BEGIN PRIVATE KEY-----\n{RSA_BODY}", RSA_BODY.split("\n")[-1], "private-key"),
    (
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + PKCS8_JSON_BODY + '\\n-----END PRIVATE KEY-----\\n"}',
        PKCS8_JSON_BODY,
        "private-key",
    ),
    ("password=hunter2 in .env", "hunter2", "password"),
    ('DB_PASSWORD="c0rrect-h0rse-battery"', "c0rrect-h0rse-battery", "password"),
    ("passwd: 'S3cr3t!pw'", "S3cr3t!pw", "password"),
    ("POSTGRES_PASSWORD: letmein", "letmein", "password"),
    ('{"user": "admin", "password": "Tr0ub4dor&3"}', "Tr0ub4dor&3", "password"),
    ('{\\"password\\": \\"escaped-in-jsonl-9\\"}', "escaped-in-jsonl-9", "password"),
    ("token: ya29.a0AfH6SMBx" + fake(30), "ya29.a0AfH6SMBx" + fake(30), "google-oauth-token"),
    ("export GITHUB_TOKEN=ghp_" + fake(36), fake(36), "github-token"),
    ("token: " + fake(30), fake(30), "token"),
    ("client_secret=" + fake(32), fake(32), "secret"),
    ("secret = 'swordfish-77'", "swordfish-77", "secret"),
    ("api_key=" + fake(32) + "&page=2", fake(32), "api-key"),
    ("apikey: " + fake(24), fake(24), "api-key"),
    ("X-Api-Key: " + fake(28), fake(28), "api-key"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + fake(10),
        "wJalrXUtnFEMI/K7MDENG",
        "access-key",
    ),
    ('conn = connect(host="db", password="pa55word!")', "pa55word!", "password"),
    ('password := "go-s3cret"', "go-s3cret", "password"),
    ("**Password:** Sunflower42", "Sunflower42", "password"),
    ("Authorization: Bearer " + fake(40), fake(40), "authorization"),
    (
        'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" https://api',
        "dXNlcjpwYXNzd29yZA==",
        "authorization",
    ),
    ("sent Bearer " + fake(30) + " upstream", fake(30), "bearer-token"),
    ("DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/app", "s3cr3t-pw", "url-password"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), CORPUS, ids=[f"{i:02d}-{c[2]}" for i, c in enumerate(CORPUS)])
def test_secret_is_redacted(text: str, secret: str, kind: str) -> None:
    assert secret in text  # guards the corpus itself
    redacted = redact(text)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 25
    assert len({kind for _, _, kind in CORPUS}) >= 15


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2", "password=[REDACTED:password]"),
        ('DB_PASSWORD="hunter2"', 'DB_PASSWORD="[REDACTED:password]"'),
        ("passwd: 'hunter2'", "passwd: '[REDACTED:password]'"),
        ('{"password": "hunter2"}', '{"password": "[REDACTED:password]"}'),
        ("token=abc123;user=bob", "token=[REDACTED:token];user=bob"),
        ("https://x.io/cb?token=abc123&state=ok", "https://x.io/cb?token=[REDACTED:token]&state=ok"),
        ("connect(password=hunter2)", "connect(password=[REDACTED:password])"),
        ("api-key => `k-123`", "api-key => `[REDACTED:api-key]`"),
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer [REDACTED:authorization]"),
        ("postgres://app:pw1@db/app", "postgres://app:[REDACTED:url-password]@db/app"),
        ("mysql --password=hunter2 -u root", "mysql --password=[REDACTED:password] -u root"),
        (
            "pip install git+https://bot:pw123@git.example/r",
            "pip install git+https://bot:[REDACTED:url-password]@git.example/r",
        ),
        ("SECRET_KEY=django-insecure-k3#x9!v2", "SECRET_KEY=[REDACTED:secret]"),
        ("Private-Key: abc123", "Private-Key: [REDACTED:private-key]"),
        ("AccessKey=abc123", "AccessKey=[REDACTED:access-key]"),
        ("PASSPHRASE: 'open sesame'", "PASSPHRASE: '[REDACTED:password]'"),
    ],
)
def test_key_name_and_quotes_are_kept(text: str, expected: str) -> None:
    assert redact(text) == expected


NOT_SECRETS = [
    "We use sk-learn for the baseline model.",
    "pip install scikit-learn and sk-learn-extras",
    "the task-runner handles retries; ask-for-help-channel-is-open-now",
    "The token is expired, refresh it.",
    "Implement the password reset flow next.",
    "Passwords: see the team vault.",
    "max_tokens: 4096",
    "num_tokens = 12",
    "tokenizer: bert-base-uncased",
    "password_reset_url: /account/reset",
    "secret_name: prod-db-credentials",
    "the secret sauce is caching",
    "secret: true",
    "password: ${DB_PASSWORD}",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "api_key=<your-api-key>",
    "password=***",
    'password: ""',
    "Authorization: Bearer $TOKEN",
    "Send `Authorization: Bearer <token>` on every call.",
    "Bearer tokens are passed in the Authorization header.",
    "AKIA is the prefix of AWS access key IDs.",
    "ghp_ tokens are classic personal access tokens; xoxb- ones are Slack bot tokens.",
    'eyJ is base64 for {" and JWTs start with it.',
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0B\n-----END CERTIFICATE-----",
    "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 fixed it",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "see https://example.com:8080/path?q=1 and git@github.com:org/repo.git",
    "ssh://git@host.example/repo and mailto:ops@example.com",
    "The access key rotation policy is 90 days.",
    "a desk-lamp, a risk-based review and a skip-list",
    "token count: the budget is 200k",
    "password = userPassword",
    "const token = getAuthToken();",
    '{"apiKey": "apiKeyFromEnv", "secret": "clientSecretOrAuthorizationCode"}',
    "progressToken: messageId, idToken: cachedIdToken",
    "GET /search?key=value&q=term and ?api_key=YOUR_KEY",
    "Cookie: theme=dark; lang=en",
    "Set-Cookie: consent=accepted; Path=/; Max-Age=31536000",
    "the secret_santa_list and secret_sharing_scheme modules",
    "if self.password is None: raise ValueError",
    "return start_token == process_start_token",
    'headers = {"Authorization": f"Bearer {token}"}',
    "def derive(peer_public_key: EllipticCurvePublicKey) -> bytes:",
    "exports.startAuthorization = startAuthorization; addPassword: addPassword",
    "WWW-Authenticate: Bearer authorization_uri=https://login.example.test",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_mixed_text_keeps_surrounding_words() -> None:
    github = "ghp_" + fake(36)
    openai = "sk-proj-" + fake(44)
    text = (
        "## Deploy notes\n"
        f"Set OPENAI creds with {openai} before running the task-runner.\n"
        "The staging db: password=hunter2 (rotate monthly).\n"
        f"CI pushes with {github}; the token is expired when CI fails.\n"
        "Ping @ops if sk-learn breaks."
    )
    assert redact(text) == (
        "## Deploy notes\n"
        "Set OPENAI creds with [REDACTED:openai-key] before running the task-runner.\n"
        "The staging db: password=[REDACTED:password] (rotate monthly).\n"
        "CI pushes with [REDACTED:github-token]; the token is expired when CI fails.\n"
        "Ping @ops if sk-learn breaks."
    )


def test_private_key_without_end_is_redacted_to_the_end_of_its_body() -> None:
    text = f"before\n-----BEGIN EC PRIVATE KEY-----\n{RSA_BODY}\nnot key material"
    assert redact(text) == "before\n[REDACTED:private-key]\nnot key material"


def test_several_private_keys_are_redacted_separately() -> None:
    text = f"{RSA_KEY}\nbetween\n{SSH_KEY}\nafter"
    assert redact(text) == "[REDACTED:private-key]\nbetween\n[REDACTED:private-key]\nafter"


def test_unquoted_private_key_value_is_redacted_whole() -> None:
    text = f"private_key: {RSA_KEY}\nnext: 1"
    assert redact(text) == "private_key: [REDACTED:private-key]\nnext: 1"


@pytest.mark.parametrize(("text", "secret", "kind"), CORPUS)
def test_redact_is_idempotent(text: str, secret: str, kind: str) -> None:
    once = redact(text)
    # a redact() that does nothing is idempotent too: first make sure this one did its work
    assert once != text and secret not in once and f"[REDACTED:{kind}]" in once
    assert redact(once) == once
    assert find_secrets(once) == []  # a marker is never itself taken for a secret


AWS_ID = "AKIA" + _UPPER[:16]
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + fake(10)


@pytest.mark.parametrize(
    "text",
    [
        f"{AWS_ID} {AWS_SECRET}",  # one space between: the separator is the only character in between
        f"{AWS_ID}\n{AWS_SECRET}",  # pasted as two lines, as in the example workspace's SpecStory session
        f"id: {AWS_ID}\nand then: {AWS_SECRET}\n",
        f"{AWS_SECRET}\n{AWS_ID}",
        f"{AWS_ID}, {AWS_SECRET}",
    ],
    ids=["one-space", "next-line", "labelled-lines", "secret-first-lines", "comma"],
)
def test_aws_secret_key_next_to_its_id_is_redacted(text: str) -> None:
    redacted = redact(text)
    assert AWS_SECRET not in redacted and AWS_ID not in redacted, redacted
    assert "[REDACTED:aws-secret-key]" in redacted and "[REDACTED:aws-access-key]" in redacted


def test_a_40_character_path_far_from_an_aws_id_is_kept() -> None:
    path = "src/Components/Widgets/DateRangePicker77"  # 40 characters of the secret-key alphabet
    assert len(path) == 40
    assert redact(path) == path
    far = f"{AWS_ID}\n" + "filler words " * 20 + f"\n{path}\n"
    assert path in redact(far)


def test_empty_and_plain_text() -> None:
    assert redact("") == ""
    assert redact("nothing to see here\n") == "nothing to see here\n"


@pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda text: repr(text[:16]))
def test_adversarial_input_is_redacted_consistently(text: str) -> None:
    """Long runs of secret prefixes and near-misses: what is found is a set of disjoint spans in the text, the
    answer is the text with exactly those spans masked, and masking again changes nothing (a marker is never taken
    for a secret). How long these take is measured by `python bench/secrets.py` (adversarial input, µs per KB);
    the detectors are linear by construction (RE2)."""
    spans = find_secrets(text)
    assert all(0 <= a.start < a.end <= len(text) for a in spans)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))
    masked = redact(text)
    kept = sum(span.end - span.start for span in spans)
    assert len(masked) == len(text) - kept + sum(len(marker(span.kind)) for span in spans)
    assert redact(masked) == masked


# --- the planted-secret corpus shared with the every-surface tests -------------------------------------------------


def test_planted_corpus_is_broad() -> None:
    assert len({p.kind for p in PLANTED}) >= 34
    assert {p.context for p in PLANTED} == set(CONTEXTS)


@pytest.mark.parametrize("planted", PLANTED, ids=[p.kind for p in PLANTED])
def test_every_planted_secret_is_redacted(planted: Planted) -> None:
    redacted = redact(planted.text)
    assert leaked(redacted, [planted]) == []
    assert "[REDACTED:" in redacted
    assert redact(redacted) == redacted


def test_planted_secrets_are_redacted_together_and_spans_agree() -> None:
    text = "\n\n".join(p.text for p in PLANTED)
    assert leaked(redact(text)) == []
    spans = find_secrets(text)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))
    assert all(any(s.start <= text.index(p.secret) < s.end for s in spans) for p in PLANTED)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("token: Bearer " + fake(32), fake(32)),
        ("authorization: bearer " + fake(24, "abcdef0123456789"), fake(24, "abcdef0123456789")),
        ("X-API-Key: " + fake(30), fake(30)),
        ("mysql -pHunter2pw billing", "Hunter2pw"),
        ("mysql -u root -pS3cret! -h db", "S3cret!"),
        ("curl -u deploy:Tr0ub4dor https://ci", "Tr0ub4dor"),
        ("tool --password Tr0ub4dor --verbose", "Tr0ub4dor"),
        ("tool --password=Tr0ub4dor", "Tr0ub4dor"),
        ("PGPASSWORD=Tr0ub4dor psql -h db", "Tr0ub4dor"),
        ("The password is: Tr0ub4dor", "Tr0ub4dor"),
        ("The password for the staging db is hunter2hunter2", "hunter2hunter2"),
        ("the root password for prod: Tr0ub4dor", "Tr0ub4dor"),
        ("The passphrase of the signing key was `Xk9mP2qLw`", "Xk9mP2qLw"),
        ('{"db_password": "Tr0ub4dor"}', "Tr0ub4dor"),
        ("SECRET_KEY=" + fake(40), fake(40)),
        ("API_KEY=" + fake(32), fake(32)),
        ("## Deploy key sk-" + fake(48), fake(48)),
        ("sshpass -p Tr0ub4dor ssh host", "Tr0ub4dor"),
    ],
)
def test_forms_that_used_to_leak(text: str, secret: str) -> None:
    assert secret not in redact(text)


IMAGE_B64 = base64.b64encode(bytes(range(256)) * 40).decode()

MUST_SURVIVE = [
    "password: required",
    "the token count is 4000",
    "API_KEY=$API_KEY",
    "api_key: <your-key>",
    "apiKey: process.env.OPENAI_API_KEY, token: settings.token, secret = get_secret()",
    "const apiKey = await prompt(); params: { _csrf_token: csrfToken }",
    "the password is expired; Bearer tokens expire too",
    "the password for the db is stored in vault; the password to the VPN is on the wiki",
    "the token for the next page is expired",
    "git checkout 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 && git log -1 a94a8fe",
    "job 550e8400-e29b-41d4-a716-446655440000 and trace 7f3a9b2c4d5e6f708192a3b4c5d6e7f8",
    f"![screenshot](data:image/png;base64,{IMAGE_B64})",
    "read /home/dev/.ssh/config and ~/.aws/credentials, wrote ./src/auth/token_store.py",
    '"integrity": "sha512-3fXsRZkQ9lDk2m1nTgB9zJ0pQ7YxKvC8e5hW6uA4sN2rP1oL0iM9jH8gF7eD6cB5aZ4yX3wV2uT1sR0q=="',
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 pulled",
    "SOME_KEY=/etc/ssl/private/server.key",
    "SIGNING_KEY=$(cat key.pem) and CACHE_KEY=build-cache-v2",
    "docker run -u 1000:1000 image; mysql -u root -p billing",
]


@pytest.mark.parametrize("text", MUST_SURVIVE)
def test_identifiers_hashes_and_references_survive(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "neighbour",
    [
        "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",  # a commit sha: hex
        "A94A8FE5CCB19BA61C4C0873D391E987982FBBD3",  # upper-case hex
        "src/components/widgets/daterangepicker77",  # no upper-case letter
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",  # not random
    ],
)
def test_a_40_character_non_secret_next_to_an_aws_id_is_kept(neighbour: str) -> None:
    """Mutation testing found _is_aws_secret's checks untested: hex, lower-case-only and repetitive 40-character
    runs next to a key id are not secret keys."""
    assert len(neighbour) == 40
    redacted = redact(f"{AWS_ID} {neighbour}")
    assert neighbour in redacted and "[REDACTED:aws-access-key]" in redacted


def test_a_token_run_is_read_once_however_many_matches_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """`AKIA` repeated is one run of token characters with a match every 20 characters: the one span runs to the
    run's end, and the run is read once for the detector, not once for each match (quadratic: 200 KB took about a
    minute of CPU, and one such line stalled indexing)."""
    from memlens.redaction import detector

    real = detector._TOKEN_RUN
    reads: list[int] = []

    class Counting:
        def match(self, text: str, at: int) -> object:
            reads.append(at)
            return real.match(text, at)

    monkeypatch.setattr(detector, "_TOKEN_RUN", Counting(), raising=False)
    text = "AKIA" * 5_000
    assert [(span.start, span.end) for span in find_secrets(text)] == [(0, len(text))]
    assert 1 <= len(reads) <= 2, len(reads)


def test_token_runs_end_where_the_token_characters_end() -> None:
    from memlens.redaction.detector import TokenRuns

    text = "ab-c_d9 xyz.q  tail"
    runs = TokenRuns(text)
    assert [runs.end_from(at) for at in (0, 3, 6, 7, 8, 2, 11, 12, 13, 15, len(text))] == [
        7,
        7,
        7,
        7,
        11,
        7,
        11,
        13,
        13,
        19,
        19,
    ]
