"""Fake secrets of every kind memlens must never show, each planted in a sentence of the context it turns up in.

Other tests plant ``PLANTED`` in every source format (Claude Code, Codex, OpenClaw, SpecStory, memory notes) and
assert that no surface (search, history, summaries, context packs, hover, LSP commands) shows any of them:

    from planted_secrets import PLANTED, leaked
    note = "\\n\\n".join(p.text for p in PLANTED)
    ...
    assert leaked(output) == []

Every value is FAKE: drawn from a seeded generator, so the list is the same on every run, and any value shaped
like a real provider token is put together at run time from pieces, so that no complete token literal sits in
the repository for a secret scanner to flag.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

CONTEXTS = ("user-prose", "assistant-prose", "command", "json", "env", "heading", "pem")

_RNG = random.Random(20260310)
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"
_ALNUM = _LOWER + _UPPER + _DIGITS
_HEX = _DIGITS + "abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"
_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]*\]?")  # whole, or cut short by an excerpt
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
HEX_PIECE = 16


@dataclass(frozen=True)
class Planted:
    """One fake secret: ``secret`` must never appear in any output; ``text`` is a sentence that contains it."""

    kind: str
    secret: str
    text: str
    context: str


def _draw(alphabet: str, length: int) -> str:
    """Random characters, with a digit, a letter and (from 8 characters) a capital wherever the alphabet has them."""
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(length))
        has_digit = any(c.isdigit() for c in value) or not any(c.isdigit() for c in alphabet)
        has_letter = any(c.isalpha() for c in value) or not any(c.isalpha() for c in alphabet)
        has_upper = any(c.isupper() for c in value) or not any(c.isupper() for c in alphabet)
        if has_digit and has_letter and (has_upper or length < 8):
            return value


def _join(*pieces: str) -> str:
    return "".join(pieces)


def _password() -> str:
    return _join(_draw(_UPPER, 1), _draw(_LOWER, 4), _draw(_DIGITS, 2), "!", _draw(_ALNUM, 5))


def _jwt() -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return ".".join([part({"alg": "HS256", "typ": "JWT"}), part({"sub": _draw(_DIGITS, 10)}), _draw(_URLSAFE, 43)])


def _pem_body(lines: int) -> str:
    return "\n".join(_draw(_B64, 64) for _ in range(lines))


def _pem(label: str, body: str) -> str:
    return _join("-----BEGIN ", label, " PRIVATE KEY-----\n", body, "\n-----END ", label, " PRIVATE KEY-----")


def _build() -> list[Planted]:
    planted: list[Planted] = []

    def plant(kind: str, secret: str, text: str, context: str) -> None:
        assert secret in text and context in CONTEXTS, kind
        planted.append(Planted(kind, secret, text, context))

    value = _join("sk-", "proj-", _draw(_URLSAFE, 48))
    plant("openai-key", value, f"my OpenAI key is {value}, please wire it into the client", "user-prose")
    value = _join("sk-", "ant-", "api03-", _draw(_URLSAFE, 90), "AA")
    plant("anthropic-key", value, f"I set ANTHROPIC_API_KEY to {value} in your shell profile.", "assistant-prose")
    key_id = _join("AK", "IA", _draw(_UPPER + _DIGITS, 16))
    plant("aws-access-key-id", key_id, f"AWS_ACCESS_KEY_ID={key_id}", "env")
    value = _draw(_B64, 40)
    plant("aws-secret-key-bare", value, f"the IAM user is {key_id} / {value}", "user-prose")
    value = _draw(_B64, 40)
    plant("aws-secret-key-assignment", value, f"[default]\naws_secret_access_key = {value}", "env")
    value = _join("gh", "p_", _draw(_ALNUM, 36))
    plant("github-pat-classic", value, f"push with {value} when CI is down", "user-prose")
    value = _join("gh", "o_", _draw(_ALNUM, 36))
    plant("github-oauth-token", value, f'{{"oauth_token": "{value}", "scope": "repo"}}', "json")
    value = _join("github", "_pat_", _draw(_ALNUM, 22), "_", _draw(_ALNUM, 59))
    plant("github-fine-grained-pat", value, f"gh auth login --with-token <<< {value}", "command")
    value = _join("gl", "pat-", _draw(_URLSAFE, 20))
    plant("gitlab-token", value, f"The GitLab token {value} has api scope.", "assistant-prose")
    value = _join("xo", "xb-", _draw(_DIGITS, 12), "-", _draw(_DIGITS, 13), "-", _draw(_ALNUM, 24))
    plant("slack-bot-token", value, f"SLACK_BOT_TOKEN={value}", "env")
    value = _join(
        "xo", "xp-", _draw(_DIGITS, 12), "-", _draw(_DIGITS, 12), "-", _draw(_DIGITS, 13), "-", _draw(_HEX, 32)
    )
    plant("slack-user-token", value, f"use the user token {value} for the export", "user-prose")
    value = _draw(_ALNUM, 24)  # the secret part of the webhook URL
    url = _join(
        "https://hooks.", "slack.com/services/T", _draw(_UPPER + _DIGITS, 8), "/B", _draw(_UPPER, 8), "/", value
    )
    plant("slack-webhook", value, f'curl -X POST -d \'{{"text":"hi"}}\' {url}', "command")
    value = _join("sk", "_live_", _draw(_ALNUM, 24))
    plant("stripe-secret-key", value, f'{{"stripe": {{"secret_key": "{value}"}}}}', "json")
    value = _join("AI", "za", _draw(_URLSAFE, 35))
    plant("google-api-key", value, f"## Maps key {value}", "heading")
    value = _join("hf", "_", _draw(_ALNUM, 34))
    plant("huggingface-token", value, f"huggingface-cli login --token {value}", "command")
    value = _join("npm", "_", _draw(_ALNUM, 36))
    plant("npm-token", value, f"//registry.npmjs.org/:_authToken={value}", "env")
    value = _jwt()
    plant("jwt", value, f"the session cookie was {value} when it failed", "assistant-prose")
    body = _pem_body(6)
    plant("rsa-private-key", body.split("\n")[3], f"Here is the key:\n{_pem('RSA', body)}\nkeep it safe", "pem")
    body = _join("b3BlbnNzaC1rZXktdjEAAAAA", _draw(_B64, 40), "\n", _pem_body(3))
    plant("openssh-private-key", body.split("\n")[2], f"```\n{_pem('OPENSSH', body)}\n```", "pem")
    body = _pem_body(4)
    escaped = json.dumps({"type": "service_account", "private_key": _pem("", body).replace("BEGIN  ", "BEGIN ")})
    escaped = escaped.replace("END  ", "END ")
    plant("pem-json-escaped", body.split("\n")[1], escaped, "json")
    body = _pem_body(5)
    plant("ec-private-key-truncated", body.split("\n")[4], f"pasted:\n-----BEGIN EC PRIVATE KEY-----\n{body}", "pem")
    value = _draw(_URLSAFE, 32)
    plant("token-bearer-field", value, f"token: Bearer {value}", "env")
    value = _draw(_ALNUM + "._-", 40)
    plant("authorization-bearer-lowercase", value, f"authorization: bearer {value}", "command")
    value = _draw(_HEX, 32)
    plant("x-api-key-header", value, f'curl -H "X-API-Key: {value}" https://api.example.test/v1', "command")
    value = base64.b64encode(_join("deploy:", _password()).encode()).decode()
    plant("basic-auth-header", value, f'{{"headers": {{"Authorization": "Basic {value}"}}}}', "json")
    value = _password()
    plant("mysql-attached-password", value, f"mysql -p{value} billing < dump.sql", "command")
    value = _password()
    plant("mysql-user-and-password", value, f"mysql -u root -p{value} -h db.internal", "command")
    value = _password()
    plant("curl-user-password", value, f"curl -u admin:{value} https://jenkins.example.test/api", "command")
    value = _password()
    plant("password-flag-space", value, f"./manage.py createsuperuser --password {value}", "command")
    value = _password()
    plant("password-flag-equals", value, f"vault login -method=userpass username=ops --password={value}", "command")
    value = _password()
    plant("pgpassword-env", value, f"PGPASSWORD={value} psql -h db -U app", "command")
    value = _password()
    plant("password-is-prose", value, f"The staging password is: {value}", "user-prose")
    value = _password()
    plant("db-password-json", value, f'{{"db_user": "app", "db_password": "{value}"}}', "json")
    value = _join(_draw(_B64, 86), "==")
    text = _join(
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=", value, ";EndpointSuffix=core.windows.net"
    )
    plant("azure-storage-connection-string", value, text, "env")
    value = _draw(_B64, 43) + "="
    text = f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={value}"
    plant("azure-service-bus-key", value, text, "env")
    value = _join("S", "K", _draw(_HEX, 32))
    plant("twilio-api-key", value, f"TWILIO_API_KEY={value}", "env")
    value = _join("A", "C", _draw(_HEX, 32))
    plant("twilio-account-sid", value, f"The Twilio account {value} sends the SMS.", "assistant-prose")
    value = _join("S", "G.", _draw(_URLSAFE, 22), ".", _draw(_URLSAFE, 43))
    plant("sendgrid-key", value, f"sendgrid: {value}", "user-prose")
    value = _join("django-insecure-", _draw(_ALNUM + "!@#%^*", 50))
    plant("env-secret-key", value, f"DEBUG=False\nSECRET_KEY={value}\nALLOWED_HOSTS=*", "env")
    value = _draw(_ALNUM, 32)
    plant("env-api-key", value, f"API_KEY={value}", "env")
    value = _password()
    plant("database-url-password", value, f"DATABASE_URL=postgres://app:{value}@db.internal:5432/app", "env")
    value = _password()
    plant("url-credentials", value, f"git clone https://deploy:{value}@git.example.test/acme/api.git", "command")
    value = _join("sk-", _draw(_ALNUM, 48))
    plant("heading-secret", value, f"## Deploy key {value}", "heading")
    value = _join("M", _draw(_URLSAFE, 23), ".", _draw(_URLSAFE, 6), ".", _draw(_URLSAFE, 27))
    plant("discord-bot-token", value, f"DISCORD_TOKEN={value}", "env")
    value = _join(_draw(_DIGITS, 10), ":", _draw(_URLSAFE, 35))
    plant("telegram-bot-token", value, f"the bot answers with token {value}", "assistant-prose")
    value = _join(_draw(_HEX, 32), "-us", _draw(_DIGITS, 2))
    plant("mailchimp-key", value, f"### Mailchimp {value}", "heading")
    value = _join("sq0", "csp-", _draw(_URLSAFE, 43))
    plant("square-oauth-secret", value, f'{{"square_client_secret": "{value}"}}', "json")
    value = _join("sq0", "atp-", _draw(_URLSAFE, 22))
    plant("square-access-token", value, f"square access token {value}", "user-prose")
    value = _join("key-", _draw(_ALNUM, 32))
    plant("mailgun-key", value, f"the mailgun sender uses {value} for the sandbox domain", "user-prose")
    value = _draw(_HEX, 32)
    plant("mailgun-hex-key", value, _join("MAILGUN_API_KEY=key-", value), "env")
    value = _password()
    plant("sql-identified-by", value, f"CREATE USER 'app'@'%' IDENTIFIED BY '{value}';", "command")
    value = _password()
    text = f"ALTER USER 'ro'@'localhost' IDENTIFIED WITH mysql_native_password BY '{value}';"
    plant("sql-identified-with-by", value, text, "command")
    value = _password()
    plant(
        "sql-with-password",
        value,
        f"CREATE ROLE reporter WITH LOGIN PASSWORD '{value}' VALID UNTIL 'infinity';",
        "command",
    )
    value = _password()
    plant("sql-set-password", value, f"SET PASSWORD FOR 'app'@'%' = PASSWORD('{value}');", "command")
    value = _password()
    plant("redis-url-empty-user", value, f"REDIS_URL=redis://:{value}@cache.internal:6379/0", "env")
    value = _password()
    plant("rediss-url-empty-user", value, f"connect with rediss://:{value}@cache.example.test:6380", "user-prose")
    value = _password()
    plant("amqp-url", value, f"CELERY_BROKER_URL=amqp://worker:{value}@mq.internal:5672//", "env")
    value = _password()
    plant("mongodb-srv-url", value, f'{{"uri": "mongodb+srv://app:{value}@cluster0.abcde.mongodb.net/prod"}}', "json")
    value = _password()
    plant("mysql-url", value, f"mysql://root:{value}@127.0.0.1:3306/app", "command")
    value = _password()
    plant("ftp-url", value, f"curl -T backup.tgz ftp://backup:{value}@files.example.test/", "command")
    value = _password()
    plant("https-url-password", value, f"open https://admin:{value}@grafana.example.test/d/abc", "assistant-prose")
    value = _password()
    plant("netrc-one-line", value, f"machine api.heroku.com login ops@example.test password {value}", "env")
    value = _password()
    plant("netrc-lines", value, f"machine git.example.test\n  login deploy\n  password {value}\n", "env")
    value = _password()
    plant("docker-login-p", value, f"docker login -u ci -p {value} registry.example.test", "command")
    value = _password()
    plant(
        "docker-login-password",
        value,
        f"docker login registry.example.test --username ci --password {value}",
        "command",
    )
    value = _password()
    plant("podman-login-password-equals", value, f"podman login --password={value} -u ci quay.io", "command")
    value = _password()
    plant("pgpass-line", value, f"db.internal:5432:billing:app:{value}", "env")
    value = _password()
    plant("pgpass-wildcards", value, f"cat ~/.pgpass\n*:*:*:postgres:{value}\n", "command")
    value = _draw(_HEX, 128)
    plant("secret-key-base", value, f"SECRET_KEY_BASE={value}", "env")
    value = _draw(_HEX, 64)
    plant("key-base-hex", value, f"export RAILS_MASTER_KEY_BASE={value}", "command")
    value = _draw(_HEX, 48)
    plant("secret-in-name-hex", value, f"JWT_SECRET_V2={value}", "env")
    value = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()
    plant("secret-in-name-base64", value, f"SESSION_SECRET_B64={value}", "env")
    value = _password()
    text = f"ldapsearch -x -H ldap://ldap.example.test -D cn=admin,dc=example,dc=test -w {value} -b dc=example"
    plant("ldapsearch-w", value, text, "command")
    value = _password()
    plant("sshpass-p", value, f"sshpass -p {value} ssh deploy@10.0.0.4", "command")
    value = _password()
    plant("htpasswd-b", value, f"htpasswd -bc /etc/nginx/.htpasswd admin {value}", "command")
    value = _password()
    plant("redis-cli-a", value, f"redis-cli -h cache.internal -a {value} ping", "command")
    value = _password()
    plant("sqlcmd-P", value, f"sqlcmd -S db.internal -U sa -P {value} -Q 'select 1'", "command")
    value = _password()
    plant("curl-user-quoted", value, f'curl --user "ci:{value}" https://nexus.example.test', "command")
    value = _draw(_HEX, 32)
    plant("x-api-key-bare-hex", value, f"X-API-Key: {value}", "env")
    value = _draw(_HEX, 32)
    plant("x-auth-token-header", value, f"curl -H 'X-Auth-Token: {value}' https://api.example.test", "command")
    value = _draw(_HEX, 32)
    plant("api-key-header", value, f'{{"headers": {{"Api-Key": "{value}"}}}}', "json")
    value = _draw(_HEX, 32)
    plant("apim-subscription-key", value, f"Ocp-Apim-Subscription-Key: {value}", "env")
    value = _draw(_ALNUM, 40)
    plant("authorization-token", value, f"Authorization: Token {value}", "env")
    value = base64.b64encode(_join("ci:", _password()).encode()).decode()
    plant(
        "authorization-basic-curl", value, f"curl -H 'Authorization: Basic {value}' https://ci.example.test", "command"
    )
    body = _join("b3BlbnNzaC1rZXktdjEAAAAA", _draw(_B64, 40), "\n", _pem_body(3))
    text = _join("-----BEGIN OPENSSH PRIV\nATE KEY-----\n", body, "\n-----END OPENSSH PRIVATE KEY-----")
    plant("openssh-key-wrapped-begin", body.split("\n")[2], text, "pem")
    body = _pem_body(4)
    text = "  " + _pem("RSA", body).replace("\n", "\n  ")
    plant("pem-indented", body.split("\n")[2], f"config:\n{text}\n", "pem")
    body = _join("MIIEpAIBAAKCAQEA", _draw(_B64, 48), "\n", _pem_body(3))
    plant("pem-body-without-header", body.split("\n")[2], f"the key body was:\n{body}\n", "pem")
    body = _pem_body(3)
    escaped = json.dumps(json.dumps({"key": _pem("EC", body)}))
    plant("pem-json-escaped-twice", body.split("\n")[1], escaped, "json")
    value = base64.b64encode(_join("deploy:", _password()).encode()).decode()
    config = json.dumps({"auths": {"registry.example.test": {"auth": value}}})
    plant("docker-auth-escaped-twice", value, json.dumps({"config": json.dumps(config)}), "json")
    value = base64.b64encode(_join("ci:", _password()).encode()).decode()
    plant("docker-auth", value, json.dumps({"auths": {"ghcr.io": {"auth": value}}}), "json")
    # generated passwords of letters alone: a camelCase-shaped one is not a code name
    value = _join("iw", _draw(_LOWER + _UPPER, 12).replace("a", "Q").replace("e", "x"))
    plant("letters-password-json", value, f'{{"username": "ops", "password": "{value}"}}', "json")
    value = "correctHorseBatteryStaple"  # words run together: a passphrase, not a name
    plant("passphrase-words", value, f"password: {value}", "env")
    value = _join("q", _draw(_LOWER + _UPPER, 39).replace("o", "Z").replace("i", "k"))
    plant("letters-api-key-env", value, f"export OPENAI_API_KEY={value}", "env")
    # (kind, prefix, the random rest): the rest is what must never show; a prefix may be a word ("secret_")
    for kind, prefix, rest in (
        ("notion-token", _join("secret", "_"), _join(_draw(_ALNUM, 43))),
        ("notion-ntn-token", _join("nt", "n_"), _join(_draw(_DIGITS, 11), _draw(_ALNUM, 35))),
        ("grafana-service-account", _join("gl", "sa_"), _join(_draw(_ALNUM, 32), "_", _draw(_HEX, 8))),
        ("grafana-cloud-token", _join("gl", "c_"), _join(_draw(_B64, 60), "==")),
        ("pulumi-token", _join("pu", "l-"), _join(_draw(_HEX, 40))),
        ("sentry-user-token", _join("sntr", "yu_"), _join(_draw(_HEX, 64))),
        ("tavily-key", _join("tv", "ly-"), _join(_draw(_ALNUM, 32))),
        ("perplexity-key", _join("pp", "lx-"), _join(_draw(_ALNUM, 48))),
        ("xai-key", _join("xa", "i-"), _join(_draw(_ALNUM, 80))),
        ("atlassian-token", _join("ATA", "TT3"), _join(_draw(_URLSAFE, 180), "=", _draw(_HEX, 8))),
        ("figma-token", _join("fi", "gd_"), _join(_draw(_URLSAFE, 40))),
        ("new-relic-key", _join("NR", "AK-"), _join(_draw(_UPPER + _DIGITS, 27))),
        ("airtable-token", _join("pa", "t"), _join(_draw(_ALNUM, 14), ".", _draw(_HEX, 64))),
        ("supabase-token", _join("sb", "p_"), _join(_draw(_HEX, 40))),
        ("pinecone-key", _join("pc", "sk_"), _join(_draw(_ALNUM, 60))),
        ("langsmith-key", _join("ls", "v2_pt_"), _join(_draw(_HEX, 32), "_", _draw(_HEX, 10))),
        ("1password-token", _join("op", "s_eyJ"), _join(_draw(_B64, 120))),
        ("buildkite-token", _join("bk", "ua_"), _join(_draw(_HEX, 40))),
        ("contentful-token", _join("CF", "PAT-"), _join(_draw(_URLSAFE, 43))),
        ("dynatrace-token", _join("dt0", "c01."), _join(_draw(_UPPER + _DIGITS, 24), ".", _draw(_UPPER + _DIGITS, 64))),
        ("mapbox-token", _join("sk", ".eyJ"), _join(_draw(_URLSAFE, 40), ".", _draw(_URLSAFE, 22))),
        ("fly-token", _join("fo", "1_"), _join(_draw(_URLSAFE, 43))),
        ("heroku-token", _join("HR", "KU-"), _join(_draw(_URLSAFE, 60))),
        ("netlify-token", _join("nf", "p_"), _join(_draw(_ALNUM, 36))),
        ("render-key", _join("rn", "d_"), _join(_draw(_ALNUM, 32))),
        ("prefect-key", _join("pn", "u_"), _join(_draw(_ALNUM, 36))),
    ):
        plant(kind, rest, f"the {kind.split('-')[0]} client reads {prefix}{rest} from the keychain", "assistant-prose")
    value = _draw(_ALNUM, 39)
    text = f"curl 'https://maps.example.test/maps/api/geocode/json?address=Oslo&key={value}'"
    plant("url-query-key", value, text, "command")
    value = _draw(_ALNUM, 32)
    plant("cookie-header", value, f"Cookie: theme=dark; sessionid={value}; lang=en", "env")
    value = _draw(_URLSAFE, 40)
    plant("curl-cookie", value, f"curl -b 'session={value}' https://admin.example.test/", "command")
    value = _join(_draw(_ALNUM, 3), "8Q~", _draw(_URLSAFE + "~.", 34))
    text = f"az login --service-principal -u http://ops-app -p {value} --tenant contoso.example"
    plant("azure-client-secret", value, text, "command")
    value = _draw(_ALNUM, 24)
    plant("vault-service-token", value, f"vault login s.{value}", "command")
    value = _join(_draw(_UPPER, 1), _draw(_LOWER, 8), _draw(_DIGITS, 3))
    plant("openssl-k", value, f"openssl enc -aes-256-cbc -salt -k {value} -in backup.tar -out backup.enc", "command")
    value = _password()
    plant("openssl-pass-arg", value, f"openssl pkcs12 -export -passout pass:{value} -out cert.p12", "command")
    value = "cobalt-orbit-ladder-quince"  # words joined by hyphens, as diceware and password managers make them
    plant("passphrase-hyphens", value, f"the wifi password is {value}", "user-prose")
    # key blocks of other armors, and cut off after their headers and body (key_blocks.py)
    body = _pem_body(4)
    armor = "---- {} SSH2 ENCRYPTED PRIVATE KEY ----"
    text = f'{armor.format("BEGIN")}\nComment: "rsa-key"\n{body}\n{armor.format("END")}'
    plant("ssh2-private-key", body.split("\n")[2], text, "pem")
    body = _pem_body(4)
    text = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n{body}\n=Zq4T\nthat is all I had"
    plant("pgp-private-key-truncated", body.split("\n")[3], text, "pem")
    body = _pem_body(4)
    text = f"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{_draw(_HEX, 32)}\n\n{body}"
    plant("encrypted-pem-truncated", body.split("\n")[3], f"{text}\nThanks", "pem")
    return planted


PLANTED: list[Planted] = _build()
KINDS: list[str] = [p.kind for p in PLANTED]


def leaked(output: str, planted: list[Planted] = PLANTED) -> list[str]:
    """The kinds whose secret appears in ``output``, whole; an empty list means nothing leaked."""
    return [p.kind for p in planted if p.secret in output]


def leaked_fragments(output: str, *, length: int = 6, planted: list[Planted] = PLANTED) -> list[str]:
    """The kinds any ``length``-character piece of whose secret appears in ``output`` (for cut-off excerpts).

    Redaction markers are removed first: "[REDACTED:github-token]" shares "github" with "github_pat_…". A piece made
    of hex digits alone is read on to ``HEX_PIECE`` characters: an index's output holds content hashes and ids, in
    which any given 8 hex digits turn up by chance often enough to fail a test now and then, never 16.
    """
    output = _MARKER.sub(" ", output)

    def pieces(secret: str) -> Iterator[str]:
        for start in range(len(secret) - length + 1):
            piece = secret[start : start + length]
            if _HEX_DIGITS.fullmatch(piece) and length < HEX_PIECE:
                if len(secret) < HEX_PIECE:
                    piece = secret  # a short hex secret is looked for whole
                elif start + HEX_PIECE <= len(secret):
                    piece = secret[start : start + HEX_PIECE]
                else:
                    continue  # near its end: read from an earlier start
            yield piece

    return [p.kind for p in planted if any(piece in output for piece in pieces(p.secret))]


@dataclass(frozen=True)
class SplitPlanted:
    """A token cut in two: ``first`` ends with its first half, the next message (``second``) starts with the rest."""

    kind: str
    secret: str
    first: str
    second: str

    def halves(self) -> list[Planted]:
        """Each half as a secret of its own: neither may be shown (a half alone is no token, the join is)."""
        cut = self.first.index(self.secret[:8])
        head = self.first[cut:]
        return [
            Planted(f"{self.kind}-head", head, self.first, "user-prose"),
            Planted(f"{self.kind}-tail", self.secret[len(head) :], self.second, "user-prose"),
        ]


@dataclass(frozen=True)
class NamedPlanted:
    """A secret in a file name: SpecStory names an export after its first prompt, so a pasted key can end up there."""

    kind: str
    secret: str
    file_stem: str


def _build_split() -> list[SplitPlanted]:
    split: list[SplitPlanted] = []
    for kind, value in (
        ("split-openai-key", _join("sk-", "proj-", _draw(_URLSAFE, 48))),
        ("split-github-pat", _join("gh", "p_", _draw(_ALNUM, 36))),
        ("split-anthropic-key", _join("sk-", "ant-", "api03-", _draw(_URLSAFE, 60))),
    ):
        half = len(value) // 2
        first = f"here is the key, it is long so I paste it in two parts: {value[:half]}"
        second = f"{value[half:]} and that is the rest of it"
        split.append(SplitPlanted(kind, value, first, second))
    return split


def _build_named() -> list[NamedPlanted]:
    named: list[NamedPlanted] = []
    for kind, value, words in (
        ("name-openai-key", _join("sk-", "proj-", _draw(_ALNUM, 40)), "use-my-key"),
        ("name-github-pat", _join("gh", "p_", _draw(_ALNUM, 36)), "push-with"),
        ("name-aws-key-id", _join("AK", "IA", _draw(_UPPER + _DIGITS, 16)), "the-aws-id-is"),
        ("name-anthropic-key", _join("sk-", "ant-", "api03-", _draw(_ALNUM, 50)), "set-the-key"),
    ):
        named.append(NamedPlanted(kind, value, f"2026-03-02_09-{len(named):02d}-00Z-{words}-{value}"))
    return named


SPLIT: list[SplitPlanted] = _build_split()
NAMED: list[NamedPlanted] = _build_named()


def _build_in_urls() -> list[Planted]:
    """Credentials a URL carries in its user part or its path: drawn after the others, so their values stay."""
    planted: list[Planted] = []
    value = _draw(_HEX, 32)
    text = f"Sentry.init({{ dsn: 'https://{value}@o{_draw(_DIGITS, 6)}.ingest.sentry.io/{_draw(_DIGITS, 7)}' }})"
    planted.append(Planted("sentry-dsn", value, text, "command"))
    value = _draw(_HEX, 32)
    text = f"the events go to https://{value}@o{_draw(_DIGITS, 6)}.ingest.us.sentry.io/{_draw(_DIGITS, 4)} now"
    planted.append(Planted("sentry-dsn-prose", value, text, "assistant-prose"))
    value = _draw(_ALNUM, 40)
    planted.append(Planted("url-user-token", value, f"pip install git+https://{value}@git.example.test/a/b", "command"))
    value = _join(_draw(_LOWER + _DIGITS, 32), "/", _draw(_HEX, 8), "-", _draw(_HEX, 4))
    url = _join(
        "https://contoso.webhook.office.com/webhookb2/",
        _draw(_HEX, 8),
        "-1111-2222-3333-",
        _draw(_HEX, 12),
        "@",
        _draw(_HEX, 8),
        "-aaaa-bbbb-cccc-",
        _draw(_HEX, 12),
        "/IncomingWebhook/",
        value,
    )
    planted.append(Planted("teams-webhook", value, f"TEAMS_HOOK={url}", "env"))
    value = _join(_draw(_DIGITS, 10), ":AA", _draw(_URLSAFE, 33))
    text = f"curl https://api.telegram.org/bot{value}/sendMessage -d chat_id=42"
    planted.append(Planted("telegram-bot-url", value, text, "command"))
    return planted


PLANTED.extend(_build_in_urls())


def _build_encoded() -> list[Planted]:
    """A credential after an Authorization scheme memlens does not know, secrets base64-encoded in configs, a
    token right after the word "token": drawn after the others, so their values stay."""
    planted: list[Planted] = []
    value = _join("00", _draw(_URLSAFE, 40))
    text = f"curl -H 'Authorization: SSWS {value}' https://dev.okta.example.test/api/v1/users"
    planted.append(Planted("authorization-other-scheme", value, text, "command"))
    key = base64.b64encode(_pem("RSA", _pem_body(6)).encode()).decode()
    value = key[len(key) // 2 : len(key) // 2 + 40]  # the key's own body, past the encoded header
    text = f"users:\n- name: admin\n  user:\n    client-key-data: {key}\n"
    planted.append(Planted("kubeconfig-client-key", value, text, "command"))
    value = base64.b64encode(json.dumps({"refresh_token": _draw(_ALNUM, 40)}).encode()).decode()
    planted.append(Planted("base64-json-token", value, json.dumps({"session": value}), "json"))
    value = _join(_draw(_ALNUM, 14), ".atlasv1.", _draw(_URLSAFE, 67))
    planted.append(Planted("terraform-token", value, f"TF_TOKEN_app_terraform_io={value}", "env"))
    value = _join("00", _draw(_ALNUM, 40))
    planted.append(Planted("token-after-word", value, f"deploy with token {value} and retry", "user-prose"))
    value = _password()
    text = f"requests.get(url, auth=('admin', '{value}'), timeout=10)"
    planted.append(Planted("python-auth-tuple", value, text, "command"))
    value = _password()  # what it is for between the word and its value
    planted.append(Planted("password-for-prose", value, f"The password for the staging db is {value}", "user-prose"))
    return planted


PLANTED.extend(_build_encoded())


def _uuid() -> str:
    return "-".join(_draw(_HEX, n) for n in (8, 4, 4, 4, 12))


def _build_provider_kinds() -> list[Planted]:
    """Kinds a coding agent's transcript holds that the formats above miss, found against gitleaks' and trufflehog's
    public rule lists (``provider_tokens``), and secrets in commands' own syntax (``command_secrets``): drawn after
    the others, so their values stay."""
    planted: list[Planted] = []
    # (kind, prefix, the random rest): the rest is what must never show
    for kind, prefix, rest in (
        ("planetscale-token", _join("pscale", "_tkn_"), _draw(_URLSAFE, 43)),
        ("planetscale-password", _join("pscale", "_pw_"), _draw(_URLSAFE, 43)),
        ("neon-key", _join("na", "pi_"), _draw(_LOWER + _DIGITS, 64)),
        ("vercel-token", _join("vc", "p_"), _draw(_ALNUM, 56)),
        ("vercel-blob-token", _join("vercel", "_blob_rw_"), _join(_draw(_ALNUM, 16), "_", _draw(_ALNUM, 30))),
        ("docker-hub-token", _join("dckr", "_pat_"), _draw(_URLSAFE, 27)),
        ("tailscale-key", _join("tskey", "-api-"), _join(_draw(_ALNUM, 17), "-", _draw(_ALNUM, 33))),
        ("aws-session-token", _join("FwoGZXIv", "YXdz"), _draw(_B64, 200)),
        ("rubygems-key", _join("ruby", "gems_"), _draw(_HEX, 48)),
        ("nuget-key", _join("o", "y2"), _draw(_LOWER + _DIGITS, 43)),
        ("crates-token", _join("c", "io"), _draw(_ALNUM, 32)),
        ("circleci-token", _join("CCI", "PAT_"), _join(_draw(_ALNUM, 22), "_", _draw(_HEX, 40))),
        ("sonar-token", _join("sq", "p_"), _draw(_HEX, 40)),
        ("sourcegraph-token", _join("sg", "p_"), _join(_draw(_HEX, 16), "_", _draw(_HEX, 40))),
        ("gitlab-runner-token", _join("GR1348", "941"), _draw(_URLSAFE, 20)),
        ("bitbucket-app-password", _join("AT", "BB"), _draw(_ALNUM, 32)),
        ("together-key", _join("tgp", "_v1_"), _draw(_URLSAFE, 43)),
        ("nvidia-key", _join("nv", "api-"), _draw(_URLSAFE, 64)),
        ("cerebras-key", _join("cs", "k-"), _draw(_LOWER + _DIGITS, 48)),
        ("fireworks-key", _join("f", "w_"), _draw(_ALNUM, 24)),
        ("jina-key", _join("ji", "na_"), _join(_draw(_HEX, 32), _draw(_URLSAFE, 30))),
        ("elevenlabs-key", _join("s", "k_"), _draw(_HEX, 48)),
        ("posthog-key", _join("ph", "x_"), _draw(_ALNUM, 43)),
        ("huggingface-org-token", _join("api", "_org_"), _draw(_LOWER + _UPPER, 34)),
        (
            "1password-secret-key",
            _join("A", "3-"),
            _join(
                _draw(_UPPER + _DIGITS, 6),
                "-",
                _draw(_UPPER + _DIGITS, 11),
                "-",
                _draw(_UPPER + _DIGITS, 5),
                "-",
                _draw(_UPPER + _DIGITS, 5),
                "-",
                _draw(_UPPER + _DIGITS, 5),
            ),
        ),
        ("infisical-token", _join("s", "t."), _join(_uuid(), ".", _draw(_HEX, 32), ".", _draw(_HEX, 32))),
        ("stripe-prod-key", _join("r", "k_prod_"), _draw(_ALNUM, 32)),
        ("plaid-token", _join("access-", "production-"), _uuid()),
        ("brevo-key", _join("xkey", "sib-"), _join(_draw(_HEX, 64), "-", _draw(_ALNUM, 16))),
        ("hubspot-token", _join("pat-", "na1-"), _uuid()),
        ("linear-oauth-token", _join("lin", "_oauth_"), _draw(_HEX, 64)),
        ("resend-key", _join("r", "e_"), _join(_draw(_ALNUM, 8), "_", _draw(_ALNUM, 24))),
        ("google-refresh-token", _join("1/", "/0"), _draw(_URLSAFE, 60)),
        ("openshift-token", _join("sha256", "~"), _draw(_URLSAFE, 43)),
        ("grafana-legacy-key", _join("eyJrIjoi", ""), _draw(_ALNUM, 80)),
    ):
        plant_text = f"the {kind.split('-')[0]} client reads {prefix}{rest} from the keychain"
        planted.append(Planted(kind, rest, plant_text, "assistant-prose"))
    value = _join("hooks.slack.com/trig", "gers/T", _draw(_UPPER + _DIGITS, 10), "/", _draw(_DIGITS, 13), "/")
    secret = _draw(_HEX, 32)
    planted.append(Planted("slack-trigger-webhook", secret, f"SLACK_TRIGGER=https://{value}{secret}", "env"))
    value = _password()
    text = f"Driver={{ODBC Driver 18 for SQL Server}};Server=db.internal;Uid=sa;Pwd={value};Encrypt=yes"
    planted.append(Planted("odbc-pwd", value, text, "env"))
    value = _password()
    text = f"echo '{value}' | docker login ghcr.io -u ci --password-stdin"
    planted.append(Planted("password-stdin-echo", value, text, "command"))
    value = _draw(_B64, 40)
    planted.append(Planted("aws-configure-set", value, f"aws configure set aws_secret_access_key {value}", "command"))
    value = _draw(_ALNUM, 40)
    planted.append(Planted("poetry-config-token", value, f"poetry config pypi-token.pypi {value}", "command"))
    value = _draw(_ALNUM, 43)
    planted.append(Planted("ngrok-authtoken", value, f"ngrok config add-authtoken {value}", "command"))
    value = _password()
    planted.append(Planted("gh-secret-set", value, f'gh secret set DB_PASSWORD --body "{value}"', "command"))
    value = _password()
    text = f"ssh-keygen -t ed25519 -N '{value}' -f ~/.ssh/deploy_key"
    planted.append(Planted("ssh-keygen-passphrase", value, text, "command"))
    value = _password()
    planted.append(Planted("zip-password", value, f"zip -P {value} -r backup.zip data/", "command"))
    value = _password()
    planted.append(Planted("7z-password", value, f"7z a -p{value} -mhe=on backup.7z data/", "command"))
    value = _password()
    planted.append(Planted("sqlplus-password", value, f"sqlplus app/{value}@//db.internal:1521/ORCL", "command"))
    value = _password()
    text = f"keytool -importkeystore -srckeystore in.p12 -storepass {value} -destkeystore out.jks"
    planted.append(Planted("keytool-storepass", value, text, "command"))
    value = _password()
    planted.append(Planted("xfreerdp-password", value, f"xfreerdp /v:10.0.0.5 /u:admin /p:{value}", "command"))
    value = _password()
    text = f"nmcli dev wifi connect OfficeNet password {value}"
    planted.append(Planted("nmcli-password", value, text, "command"))
    value = _password()
    text = f"security add-generic-password -a ci -s deploy -w {value}"
    planted.append(Planted("macos-keychain-password", value, text, "command"))
    value = _password()
    text = f"http -a admin:{value} POST https://api.example.test/items"
    planted.append(Planted("httpie-auth", value, text, "command"))
    value = _password()
    planted.append(Planted("rabbitmqctl-password", value, f"rabbitmqctl add_user deploy {value}", "command"))
    return planted


PLANTED.extend(_build_provider_kinds())
KINDS[:] = [p.kind for p in PLANTED]
# keys of the provider formats in file names, too (a title reads their hyphens as spaces)
for _kind, _value, _words in (
    ("name-tailscale-key", _join("tskey", "-auth-", _draw(_ALNUM, 13), "-", _draw(_ALNUM, 24)), "join-with"),
    ("name-planetscale-token", _join("pscale", "_tkn_", _draw(_ALNUM, 43)), "db-token"),
):
    NAMED.append(NamedPlanted(_kind, _value, f"2026-03-02_09-{len(NAMED):02d}-00Z-{_words}-{_value}"))


def _build_stdin_forms() -> list[Planted]:
    """A secret a command reads from its standard input, echoed into `sudo -S` or `passwd --stdin`, or given as a
    here-string to a login or a secret store: drawn after the others (the file names' keys too), so their values
    stay."""
    planted: list[Planted] = []
    value = _password()
    planted.append(Planted("sudo-stdin-echo", value, f"echo '{value}' | sudo -S apt-get update", "command"))
    value = _password()
    planted.append(Planted("sudo-stdin-flags", value, f"echo {value} | sudo -k -S systemctl restart nginx", "command"))
    value = _password()
    planted.append(Planted("passwd-stdin", value, f'echo "{value}" | passwd --stdin deploy', "command"))
    value = _draw(_ALNUM, 40)
    planted.append(Planted("here-string-with-token", value, f"gh auth login --with-token <<< {value}", "command"))
    value = _password()
    text = f"vercel env add DB_PASSWORD production <<< '{value}'"
    planted.append(Planted("here-string-env-add", value, text, "command"))
    value = _password()
    planted.append(Planted("here-string-sudo", value, f"sudo -S reboot <<< {value}", "command"))
    return planted


PLANTED.extend(_build_stdin_forms())


def _build_stdin_shapes() -> list[Planted]:
    """More shapes of a secret handed on standard input: sudo's options that take an argument before its -S, a
    pipe without spaces, printf's format, a here-document's first line, a pipe inside `ssh host '…'`, the other
    commands that read one (`--with-token`, htpasswd -i, chpasswd): drawn after the others, so their values stay."""
    planted: list[Planted] = []
    for kind, shape in (
        ("sudo-stdin-user-option", "echo '{v}' | sudo -u root -S apt-get update"),
        ("sudo-stdin-long-option", "echo {v} | sudo --user=deploy -p '' -S systemctl restart app"),
        ("sudo-stdin-cluster", "printf '%s\\n' '{v}'|sudo -kS -u postgres psql"),
        ("sudo-here-document", "sudo -u root -S apt-get upgrade -y <<EOF\n{v}\nEOF"),
        ("cat-here-document-pipe", "cat <<'EOF' | passwd --stdin deploy\n{v}\nEOF"),
        ("ssh-sudo-stdin", "ssh deploy@10.0.0.7 'echo {v} | sudo -H -u www-data -S systemctl reload nginx'"),
        ("with-token-pipe", "echo {v} | gh auth login --hostname github.example.test --with-token"),
        ("htpasswd-stdin", "echo '{v}' | htpasswd -B -i /etc/nginx/.htpasswd admin"),
        ("chpasswd-pipe", "echo 'deploy:{v}' | sudo chpasswd"),
    ):
        value = _password()
        planted.append(Planted(kind, value, shape.format(v=value), "command"))
    return planted


PLANTED.extend(_build_stdin_shapes())


def _build_command_arguments() -> list[Planted]:
    """A password a command takes as an argument in a shape of its own, or a key that names whose password it is:
    htpasswd's forms of -b (with -n and options apart), rar's attached -p, rclone's key-value pairs, Windows' net use
    (the password before or after /user:), Oracle's tools' user/PW@db, and "pass" after a word saying whose
    (ansible_become_pass, --user_pass); a secret in markup (an XML element's text, a key/value pair of attributes, an
    ARM parameter's value object): drawn after the others, so their values stay."""
    planted: list[Planted] = []
    for kind, shape in (
        ("htpasswd-b-file", "htpasswd -b /etc/nginx/.htpasswd admin {v}"),
        ("htpasswd-options-apart", "htpasswd -B -C 12 -b .htpasswd admin {v}"),
        ("htpasswd-nb", "htpasswd -nbB admin {v}"),
        ("rar-p", "rar a -hp -p{v} backup.rar ./secrets"),
        ("rclone-config-pass", "rclone config create nas sftp host nas.local user backup pass {v}"),
        ("rclone-obscure", "rclone obscure {v}"),
        ("net-use-password-first", "net use Z: \\\\files.corp\\share {v} /user:CORP\\deploy"),
        ("net-use-password-after-user", "net use \\\\files.corp\\ipc$ /user:admin {v}"),
        ("ansible-become-pass", "ansible-playbook site.yml -e 'ansible_become_pass={v}'"),
        ("user-pass-flag", "wp user create ci ci@example.test --role=editor --user_pass={v}"),
        ("db-pass-env", "DB_PASS={v}"),
        ("rman-target", "rman target sys/{v}@proddb"),
        ("expdp-connect", "expdp system/{v}@orcl schemas=app directory=dumps"),
        ("sqlldr-userid", "sqlldr userid=scott/{v}@orcl control=load.ctl"),
        ("xml-password-element", "<server>\n  <id>nexus</id>\n  <password>{v}</password>\n</server>"),
        ("nuget-cleartext-password", '<add key="ClearTextPassword" value="{v}" />'),
        ("spring-xml-property", "<property name=\"dataSource.password\" value='{v}'/>"),
        ("arm-parameter-value", '"adminPassword": {{\n  "value": "{v}"\n}}'),
    ):
        value = _password()
        planted.append(Planted(kind, value, shape.format(v=value), "command"))
    value = _draw(_ALNUM, 32)
    planted.append(Planted("appsettings-secret", value, f'<add key="StripeApiSecret" value="{value}" />', "command"))
    return planted


PLANTED.extend(_build_command_arguments())
KINDS[:] = [p.kind for p in PLANTED]
# Everything that must never be shown whole: the planted texts, each half of a split token, the keys in file names.
EVERY_SECRET: list[Planted] = [
    *PLANTED,
    *(half for item in SPLIT for half in item.halves()),
    *(Planted(item.kind, item.secret, item.file_stem, "heading") for item in NAMED),
]
