"""Our own detectors, for what detect-secrets does not cover: the contexts secrets sit in, not just their format.

* token formats the library lacks or matches too narrowly (``sk-…``, ``github_pat_…``, ``hf_…``, ``AIza…``, …);
* PEM/OpenSSH/PGP/PuTTY private-key blocks (``key_blocks``), across lines or JSON-escaped with a literal ``\\n``;
* assignments whose key names a secret (``DB_PASSWORD=…``, ``"db_password": "…"``, ``X-API-Key: …``,
  ``token: Bearer …``), ``Authorization:`` headers, ``Bearer …``, ``password is …``;
* shell forms: ``mysql -pPW``, ``curl -u user:pw``, ``--password X``, ``sshpass -p X``;
* the password of ``scheme://user:password@host`` URLs, a key as a URL's user (``scheme://KEY@host``: a Sentry
  DSN), webhook URLs whose path is the secret (Slack, Discord, Teams, a Telegram bot's), Azure
  ``AccountKey=``/``SharedAccessKey=``, SAS ``sig=``;
* a bare 40-character AWS secret access key next to an AWS access key id.

Every pattern is RE2 syntax (no lookaround, no backreference): the scanner runs them all in linear time.
Values after a key are judged by ``values.is_secret_value`` with the strength of evidence the key gives.
"""

from __future__ import annotations

import base64
import re

from memlens.redaction.detector import Detector
from memlens.redaction.key_blocks import BLOCK_KIND, KEY_BODY, PEM, PUTTY
from memlens.redaction.values import Evidence, is_generated, looks_random

# What a password in prose is for, between the word and "is" or ":": "for", "of" or "to" and one to four words
# ("for the staging db", "of the prod replica", "to the VPN"), none of them holding the ":" that ends it nor ending a
# sentence ("a pin on your purse. Is it Spider-Man" is two sentences and no password)
_WHAT_FOR = r"[ \t]+(?:for|of|to)(?:[ \t]+[^\s:`\"'<>]*[^\s:.?!`\"'<>]){1,4}?"

# "pass" after a word naming whose password it is (ansible_become_pass, DB_PASS, --user_pass, smtp_pass): a password,
# though "pass" alone is weak (first_pass, bypass, SKIP_PASS), and run together it names a variable in code
# (`userpass = username`)
_WHOSE_PASS = (
    r"(?:become|ssh|sudo|su|user|admin|root|db|database|mysql|mariadb|postgres|pg|redis|mongo|smtp|mail|email|imap"
    r"|ftp|sftp|ldap|bind|vnc|rdp|wifi|wlan|vpn|proxy|login|account|service|app|client|master|api|store|key)[_-]pass"
)
# Endings of key names that name a secret outright: a password may be any word, a key or token is generated.
PASSWORD_ENDINGS = "password|passwd|passphrase|" + _WHOSE_PASS
KEY_ENDINGS = (
    "secret|secret[_-]?key|token|api[_-]?key|access[_-]?key|private[_-]?key"
    "|auth[_-]?key|account[_-]?key|master[_-]?key|signing[_-]?key|encryption[_-]?key"
)
# Endings that only sometimes do ("MYSQL_PWD", "DB_PASS", "SOME_KEY", "GOOGLE_CREDENTIALS"): random values only.
_WEAK_ENDINGS = r"pwd|pass|credentials?|auth|[_-]key|dsn|salt"
_KEY_CHARS = r"[A-Za-z0-9_.\-]"
_KIND_BY_ENDING = (
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("pwd", "password"),
    ("pass", "password"),
    ("token", "token"),
    ("apikey", "api-key"),
    ("accesskey", "access-key"),
    ("privatekey", "private-key"),
    ("secret", "secret"),
)
# A value after "key =" / "key:": double-, single-, back- or JSON-escaped-quoted, or a bare run.
VALUE = (
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*)\""
    r"|'(?P<sq>[^'\n]*)'"
    r"|`(?P<bq>[^`\n]*)`"
    r"|\\\"(?P<eq>[^\"\\\n]*)\\\""
    r"|(?P<ref>\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$?\{\{[^{}\n]*\}\})"
    r"|(?P<bare>[^\s'\"`,;&<>\\(){}\[\]|]+))"
)
VALUE_GROUPS = ("dq", "sq", "bq", "eq", "ref", "bare")
_AUTH_SCHEME = r"(?i:bearer|basic|token|bot|digest|negotiate|apikey|sso-key)"
# A scheme memlens does not know, with the credential after it (Okta's "SSWS 00…", "GenieKey …", "AWS4-HMAC-SHA256
# Credential=…"): both are masked, as which word is the credential cannot be told apart
_OTHER_SCHEME = r"[A-Za-z][A-Za-z0-9_\-]{1,30}[ \t]+[A-Za-z0-9._~+/=:\-]{16,}"
_ASSIGN = r"(?:\\?[\"'`]|\*\*)?[ \t]*(?::=|=>|[:=])[ \t]*(?:\*\*[ \t]*)?"


def kind_of_key(key: str) -> str:
    """The marker kind for an assignment key: ``DB_PASSWORD`` → password, ``X-Api-Key`` → api-key."""
    squashed = key.lower().replace("_", "").replace("-", "").replace(".", "")
    for ending, kind in _KIND_BY_ENDING:
        if squashed.endswith(ending):
            return kind
    return "secret"


def _not_a_url(value: str) -> bool:
    """``-u http://app``: a user argument that is a URL (``az login -u``) holds no ``user:password``."""
    return not value.startswith("//")


def _random_with_digit(value: str) -> bool:
    return _has_digit_and_letter(value) and looks_random(value)


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _random_or_generated(value: str) -> bool:
    return looks_random(value) or is_generated(value)


def _is_aws_secret(value: str) -> bool:
    lowered = value.lower()
    is_hex = all(c in "0123456789abcdef" for c in lowered)
    return not is_hex and any(c.isupper() for c in value) and looks_random(value)


_COOKIE_VALUE = re.compile(r"=[ \t]*\"?([A-Za-z0-9%+/=_.:\-]+)(?=$|[;,\"\s])")


def _has_generated_cookie(header: str) -> bool:
    """Whether a cookie header holds a generated value (a session id, a signed token), not ``theme=dark``."""
    return any(_random_or_generated(value) for value in _COOKIE_VALUE.findall(header))


_DIGEST_KEY = re.compile(r"(?i).*(?:sha\d*|hash|digest|sum|checksum|fingerprint|etag|commit|rev|revision|id)")


def _names_no_digest(key: str) -> bool:
    """``commit_token_sha``, ``SECRET_HASH``: a key naming a digest or an id holds a hash, not a secret."""
    return _DIGEST_KEY.fullmatch(key) is None


def _docker_auth(value: str) -> bool:
    """A docker ``auth``: base64 of ``user:password`` (an identity token is any long random value)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=False).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return looks_random(value)
    return ":" in decoded or looks_random(value)


# How base64 of a text with a secret in it starts: of "-----BEGIN" (a kubeconfig's client-key-data, a Kubernetes
# secret's tls.key), of '{"' or '{\n' (a JSON config), of '[{'
_ENCODED_TEXT = r"(?:LS0tLS1CRUdJT|eyJ|ewo|W3s)[A-Za-z0-9+/_\-]{16,}"


def _encodes_a_secret(value: str) -> bool:
    """Whether ``value``, base64 (standard or URL-safe, perhaps cut short), decodes to a text that holds a secret."""
    from memlens.redaction import find_secrets  # the detectors' own module imports this one

    whole = value[: len(value) // 4 * 4]
    decoded = base64.b64decode(whole, altchars=b"-_" if "-" in whole or "_" in whole else None)
    return bool(find_secrets(decoded.decode("utf-8", "replace")))


def _token(kind: str, pattern: str, *, needs_digit: bool = False) -> Detector:
    check = _has_digit_and_letter if needs_digit else None
    return Detector(kind=kind, pattern=pattern, word_start=True, check=check)


TOKEN_DETECTORS = [
    _token("anthropic-key", r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    _token("openai-key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", needs_digit=True),
    _token("stripe-key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"),
    _token("github-token", r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}"),
    _token("gitlab-token", r"gl(?:pat|dt|ft|rt|soat|cbt|imt|ptt|oas|agent)-[A-Za-z0-9_\-]{20,}"),
    _token("slack-token", r"(?:xox[a-z]|xapp)-[A-Za-z0-9\-]{10,}", needs_digit=True),
    _token("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]{20,}"),
    _token("discord-webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+"),
    # Teams incoming webhooks (and Office 365 connectors): the whole URL is the credential
    _token(
        "teams-webhook",
        r"https://(?:[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/"
        r"[A-Za-z0-9\-]+@[A-Za-z0-9\-]+/IncomingWebhook/[A-Za-z0-9\-/]+",
    ),
    # a Telegram bot's token, also inside its API URL: api.telegram.org/bot<id>:<secret>/sendMessage
    Detector(
        kind="telegram-bot-token",
        pattern=r"(?:\b|/bot)(?P<value>\d{8,10}:AA[A-Za-z0-9_\-]{30,36})(?:$|[^A-Za-z0-9_\-])",
        secret_groups=("value",),
    ),
    _token("google-api-key", r"AIza[A-Za-z0-9_\-]{35}"),
    _token("google-oauth-token", r"ya29\.[A-Za-z0-9_\-]{20,}|GOCSPX-[A-Za-z0-9_\-]{20,}"),
    _token("huggingface-token", r"hf_[A-Za-z0-9]{30,}"),
    _token("npm-token", r"npm_[A-Za-z0-9]{36}"),
    _token("jwt", r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*"),
    _token("square-token", r"sq0(?:atp|csp)-[0-9A-Za-z\-_]{22,}|EAAA[A-Za-z0-9\-_]{60}"),
    _token("databricks-token", r"dapi[a-f0-9]{32}"),
    _token("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}"),
    _token("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _token("linear-key", r"lin_api_[A-Za-z0-9]{40}"),
    _token("groq-key", r"gsk_[A-Za-z0-9]{48,}"),
    _token("replicate-token", r"r8_[A-Za-z0-9]{37}"),
    _token("vault-token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    _token("terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}"),
    # Entra ID (Azure AD) client secrets: three characters, a digit, "Q~", then 31 to 34 more
    _token("azure-client-secret", r"[A-Za-z0-9_.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}"),
    _token("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    _token("doppler-token", r"dp\.(?:st|sa|ct|pt|scim|audit)\.(?:[a-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,}"),
    _token("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("notion-token", r"secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46}", needs_digit=True),
    _token("grafana-token", r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    _token("pulumi-token", r"pul-[a-f0-9]{40}"),
    _token("sentry-token", r"sntrys_eyJ[A-Za-z0-9+/=_\-]{40,}|sntryu_[a-f0-9]{64}"),
    _token("tavily-key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    _token("perplexity-key", r"pplx-[A-Za-z0-9]{48}"),
    _token("xai-key", r"xai-[A-Za-z0-9]{80}"),
    _token("atlassian-token", r"AT(?:ATT|CTT)3[A-Za-z0-9_\-=]{60,}"),
    _token("figma-token", r"figd_[A-Za-z0-9_\-]{40}"),
    _token("new-relic-key", r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,27}", needs_digit=True),
    _token("airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _token("1password-token", r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    _token("supabase-key", r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}"),
    _token("pinecone-key", r"pcsk_[A-Za-z0-9_]{40,}"),
    _token("langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _token("buildkite-token", r"bkua_[a-f0-9]{40}"),
    _token("contentful-token", r"CFPAT-[A-Za-z0-9_\-]{43}"),
    _token("dynatrace-token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    _token("mapbox-token", r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}"),
    _token("fly-token", r"fo1_[A-Za-z0-9_\-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_\-]{40,}"),
    _token("heroku-token", r"HRKU-[A-Za-z0-9_\-]{40,}"),
    _token("netlify-token", r"nfp_[A-Za-z0-9]{36}"),
    _token("render-key", r"rnd_[A-Za-z0-9]{32}"),
    _token("prefect-key", r"pnu_[A-Za-z0-9]{36}"),
    # Mailgun's "key-" and 32 characters, whole: "key-value-store-…" is a name, not a key
    Detector(
        kind="mailgun-key",
        pattern=r"(?P<value>key-[A-Za-z0-9]{32})(?:$|[^A-Za-z0-9_\-])",
        secret_groups=("value",),
        word_start=True,
        check=_has_digit_and_letter,
    ),
]


# Command-line tools that take a password as the value of a short flag: (tool, flag). The flag counts only after
# the tool's name on the same command, so "-w" of grep or "-a" of ls is never read as a password.
_CLI_PASSWORD_FLAGS = (
    (r"ldap(?:search|modify|add|delete|passwd|compare|modrdn|whoami|exop|url)", "[wy]"),
    (r"(?:docker|podman|buildah|skopeo|nerdctl|helm[ \t]+registry|oras|oc)[ \t]+login", "p"),
    (r"redis-cli", "a"),
    (r"(?:sqlcmd|bcp|osql)", "P"),
    (r"(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)", "p"),
    (r"(?:smbclient|rpcclient)", r"U[ \t]*[^\s%]+%"),
    (r"(?:ipmitool)", "P"),
    (r"az[ \t]+login", "p"),
    (r"openssl", r"k[ \t]"),  # "-k PASS" only: -key, -keyout and -kdf are other options
    (r"ssh-keygen", "[NP]"),  # the new and the old passphrase
    (r"(?:zip|unzip)", "P"),  # (unzip's "-p" pipes to stdout)
    (r"security[ \t]+add-(?:generic|internet)-password", "w"),
    (r"mosquitto_(?:pub|sub|rr)", "P"),
    (r"rdesktop", "p"),
    (r"gh[ \t]+secret[ \t]+set", r"(?:b|-body=?)"),  # the value a repository secret is set to
)
# htpasswd's options before its file and user: "-C COST", or letters, together (-bc) or apart (-b -c); `-b` takes the
# password on the command line, `-n` writes to standard output (no file)
_HTPASSWD_OPTION = r"[ \t]+-(?:C[ \t]*\d+|[A-Za-z]+)"
_HTPASSWD_OPTION_NOT_N = r"[ \t]+-(?:C[ \t]*\d+|[A-Za-mo-z]+)"
_HTPASSWD_WITH_B_NOT_N = rf"(?:{_HTPASSWD_OPTION_NOT_N})*?[ \t]+-[A-Za-mo-z]*b[A-Za-mo-z]*(?:{_HTPASSWD_OPTION_NOT_N})*"
_HTPASSWD_WITH_N_AND_B = (
    rf"(?:{_HTPASSWD_OPTION})*?(?:[ \t]+-[A-Za-z]*(?:n[A-Za-z]*b|b[A-Za-z]*n)[A-Za-z]*"
    rf"|[ \t]+-[A-Za-z]*n[A-Za-z]*(?:{_HTPASSWD_OPTION})*?[ \t]+-[A-Za-z]*b[A-Za-z]*"
    rf"|[ \t]+-[A-Za-z]*b[A-Za-z]*(?:{_HTPASSWD_OPTION})*?[ \t]+-[A-Za-z]*n[A-Za-z]*)(?:{_HTPASSWD_OPTION})*"
)
# SQL: IDENTIFIED BY '…', IDENTIFIED WITH plugin BY '…', [ENCRYPTED] PASSWORD '…', PASSWORD('…'), SET PASSWORD = '…'
_SQL_PASSWORD = (
    r"(?i:\bIDENTIFIED(?:[ \t]+WITH[ \t]+[A-Za-z0-9_]+)?[ \t]+BY(?:[ \t]+PASSWORD)?"
    r")[ \t]+(?:'(?P<sq>(?:[^'\\\n]|\\.|'')*)'|\"(?P<dq>[^\"\n]*)\")"
    r"|(?i:\bPASSWORD(?:[ \t]+|[ \t]*=[ \t]*(?:PASSWORD[ \t]*\([ \t]*)?|[ \t]*\([ \t]*))'(?P<sq2>(?:[^'\\\n]|\\.|'')*)'"
)

CONTEXT_DETECTORS = [
    Detector(kind=BLOCK_KIND, pattern=PEM),
    Detector(kind="encoded-secret", pattern=_ENCODED_TEXT, word_start=True, check=_encodes_a_secret),
    Detector(kind=BLOCK_KIND, pattern=PUTTY),
    Detector(kind=BLOCK_KIND, pattern=KEY_BODY, word_start=True),
    # DB_PASSWORD=…, "db_password": "…", X-Api-Key: …, token: Bearer …, **Password:** …, SOME_KEY=…
    *(
        Detector(
            kind="secret",
            pattern=rf"(?P<key>{_KEY_CHARS}*(?i:{endings})){_ASSIGN}(?:{_AUTH_SCHEME}[ \t]+)?{VALUE}",
            secret_groups=VALUE_GROUPS,
            evidence=evidence,
            kind_of_key=kind_of_key,
        )
        for endings, evidence in (
            (PASSWORD_ENDINGS, Evidence.STRONG),
            (KEY_ENDINGS, Evidence.KEY),
            (_WEAK_ENDINGS, Evidence.WEAK),
        )
    ),
    # "deploy with token 00aB3…", "my api key Zx81…": a generated value right after the word that names it
    Detector(
        kind="secret",
        pattern=r"(?i:\b(?:token|api[ _-]?key|secret|password|passwd|passphrase|credentials?)[ \t]+)"
        r"[`\"']?(?P<value>[A-Za-z0-9+/=_\-]{20,})",
        secret_groups=("value",),
        check=is_generated,
    ),
    # "the password is hunter2", "Password is: S3cret", "the password for the staging db is hunter2", "the root
    # password for prod: Tr0ub4dor": what it is for, in a few words, may stand between the word and its value
    Detector(
        kind="password",
        pattern=r"(?i:\b(?:password|passphrase|passwd|passcode|pin|token|secret|api[ _-]?key)"
        rf"(?:{_WHAT_FOR}[ \t]+(?:is|was)[ \t]*:?|{_WHAT_FOR}[ \t]*:|[ \t]+(?:is|was)[ \t]*:?)"
        r"[ \t]*(?:\*\*)?[`\"']?)(?P<value>[^\s`\"'<>]+)",
        secret_groups=("value",),
        evidence=Evidence.PROSE,
    ),
    Detector(
        kind="authorization",
        pattern=r"(?i:(?:proxy-)?authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
        rf"(?:{_AUTH_SCHEME}[ \t]+)?(?P<value>{_OTHER_SCHEME}|[^\s'\"`,;<>\\]+)",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
    ),
    Detector(
        kind="bearer-token",
        pattern=r"\b(?i:bearer)[ \t]+(?P<value>[A-Za-z0-9._~+/\-]{8,}=*)",
        secret_groups=("value",),
        evidence=Evidence.PROSE,
    ),
    # mysql -pS3cret, mysql -u root -p'S3cret!' (attached only: "-p db" prompts for the password)
    Detector(
        kind="password",
        pattern=r"(?i:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump))"
        rf"[^\n|;&]*?[ \t]-p{VALUE}",
        secret_groups=VALUE_GROUPS,
        evidence=Evidence.STRONG,
    ),
    Detector(kind="password", pattern=rf"\bsshpass[ \t]+-p[ \t]*{VALUE}", secret_groups=VALUE_GROUPS),
    # Python's HTTP clients: requests.get(url, auth=('admin', 'S3cret')), HTTPBasicAuth("admin", "S3cret")
    Detector(
        kind="password",
        pattern=r"(?:\bauth[ \t]*=[ \t]*[(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|DigestAuth)\()"
        r"[ \t]*[\"'][^\"'\n]{1,128}[\"'][ \t]*,[ \t]*[\"'](?P<value>[^\"'\n]{1,256})[\"']",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
    ),
    # openssl's and others' pass phrase arguments: -pass pass:PW, -passin pass:PW, -passout pass:PW
    Detector(
        kind="password",
        pattern=r"(?:^|[\s\"'])-pass(?:in|out|word)?[ \t]+[\"']?pass:(?P<value>[^\s'\"]+)",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
    ),
    # HashiCorp Vault's service tokens before the hvs. prefix: "s." and 24 random characters, a digit among them
    # (minified code's `s.noDeleteOnFetchRejection` is 24 letters)
    Detector(
        kind="vault-token",
        pattern=r"\bs\.(?P<value>[A-Za-z0-9]{24})\b",
        secret_groups=("value",),
        check=_random_with_digit,
    ),
    # --password X, --password=X, --api-key X, --token=X
    *(
        Detector(
            kind="password",
            pattern=rf"(?:^|[\s\"'])--?(?P<key>(?:[a-z0-9]+-)*(?:{endings}))(?:=|[ \t]+)"
            r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s'\"`;&|<>-][^\s'\"`;&|<>]*))",
            secret_groups=("dq", "sq", "bare"),
            evidence=evidence,
            kind_of_key=kind_of_key,
        )
        for endings, evidence in (
            ("password|passwd|passphrase|(?:src|dest|new)?(?:store|key)pass", Evidence.STRONG),  # keytool's
            ("token|secret|api-key|apikey|access-key|secret-key|private-key|auth-token", Evidence.KEY),
        )
    ),
    *(
        Detector(
            kind="password",
            pattern=rf"(?:^|[\s;&|(`'\"])(?:[A-Za-z0-9_.-]*/)?{tool}\b[^\n|;&]*?[ \t]-{flag}"
            rf"[ \t]*{second}{VALUE}",
            secret_groups=VALUE_GROUPS,
            evidence=Evidence.STRONG,
        )
        for tool, flag in _CLI_PASSWORD_FLAGS
        # the first flag's value, and a second one's: a match ends at the first, and the next must start at the
        # tool's name ("ssh-keygen -p -P OLD -N NEW")
        for second in ("", rf"\S+[^\n|;&]*?[ \t]-{flag}[ \t]*")
    ),
    # htpasswd -b[cmBdps] [-C cost] FILE USER PASSWORD, htpasswd -nb[mBdps] USER PASSWORD: one detector a form, as
    # one pattern of two forms named its value's groups twice, and a match of the second form masked nothing
    *(
        Detector(
            kind="password",
            pattern=rf"\bhtpasswd{options}{positionals}{VALUE}",
            secret_groups=VALUE_GROUPS,
            evidence=Evidence.STRONG,
        )
        for options, positionals in (
            (_HTPASSWD_WITH_B_NOT_N, r"[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+"),
            (_HTPASSWD_WITH_N_AND_B, r"[ \t]+[^\s-]\S*[ \t]+"),
        )
    ),
    Detector(kind="password", pattern=_SQL_PASSWORD, secret_groups=("sq", "dq", "sq2"), evidence=Evidence.STRONG),
    # .netrc: "machine HOST login USER password PW", on one line or several
    Detector(
        kind="password",
        pattern=r"\b(?:machine|default|login)\b[^\n]*?(?:\n[^\n]*?){0,3}?[ \t\n]password[ \t]+(?P<value>[^\s'\"`]+)",
        secret_groups=("value",),
        evidence=Evidence.KEY,
    ),
    # .pgpass: hostname:port:database:username:password, standing alone (a line, or a word of a command)
    Detector(
        kind="password",
        pattern=r"(?:^|[\s'\"`])[A-Za-z0-9.*_\-\[\]]+:(?:\d{1,5}|\*):[^:\s'\"`]+:[^:\s'\"`]+:"
        r"(?P<value>(?:[^\s:\\'\"`]|\\.)+)(?:$|[\s'\"`])",
        secret_groups=("value",),
        evidence=Evidence.KEY,
    ),
    # SECRET_KEY_BASE=<hex>, JWT_SECRET_V2=<hex>, SESSION_SECRET_B64=<base64>: a name holding SECRET, TOKEN,
    # PASSWORD or KEY_BASE anywhere, with a generated value (long hex or base64)
    Detector(
        kind="secret",
        pattern=r"(?P<key>[A-Za-z0-9_.\-]*(?i:secret|token|passw|key[_-]?base|private[_-]?key)[A-Za-z0-9_.\-]*)"
        rf"{_ASSIGN}\\*[\"'`]?(?P<value>[A-Za-z0-9+/=_\-]{{20,}})",
        secret_groups=("value",),
        check=is_generated,
        key_check=_names_no_digest,
        kind_of_key=kind_of_key,
    ),
    # API-key headers: X-API-Key, X-Auth-Token, Api-Key, Ocp-Apim-Subscription-Key, X-Goog-Api-Key, …
    Detector(
        kind="api-key",
        pattern=r"(?i:\b(?:x-[a-z0-9-]*(?:key|token|secret|auth|signature)|[a-z0-9-]*(?:api-?key|subscription-key"
        r"|auth-token|access-token|session-token)))\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?P<value>[^\s'\"`,;<>\\]{16,})",
        secret_groups=("value",),
        evidence=Evidence.KEY,
        check=_has_digit_and_letter,
    ),
    # docker's config.json "auth": base64 of "user:password", however many times the JSON was escaped
    Detector(
        kind="docker-auth",
        pattern=r"\\*\"(?i:auth|identitytoken|registrytoken)\\*\"[ \t]*:[ \t]*\\*\""
        r"(?P<value>[A-Za-z0-9+/=_\-.]{8,})\\*\"",
        secret_groups=("value",),
        check=_docker_auth,
    ),
    # curl -u user:pw, --user=user:pw (a password with at least one non-digit: "-u 1000:1000" is a uid:gid)
    Detector(
        kind="password",
        pattern=r"(?:^|[\s\"'])(?:-u|--user)(?:=|[ \t]*)[\"']?[A-Za-z0-9_.@\\\-]+:"
        r"(?P<value>[^\s'\"]*[^\s'\"0-9][^\s'\"]*)",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
        check=_not_a_url,
    ),
    Detector(
        kind="url-password",
        pattern=r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'<>\[]*:(?P<value>[^\s/@\"'<>]+)@",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
    ),
    # a proxy's user:password@host without a scheme, as curl -x, pip --proxy, git's http.proxy and the *_proxy
    # variables take it: a generated value or one with a digit (a lowercase word is a name: "user:pass" in docs)
    Detector(
        kind="url-password",
        pattern=r"(?:(?i:proxy)[\w.\-]*[\"']?(?:[ \t]*[=:][ \t]*|[ \t]+)|(?:^|[\s\"'])-x[ \t]+)[\"']?"
        r"[A-Za-z0-9_.%\-]+:(?P<value>[^\s/@\"'<>]+)@[A-Za-z0-9\[]",
        secret_groups=("value",),
        evidence=Evidence.KEY,
    ),
    # anywhere else, user:password@host without a scheme (an rsync or scp line, a folder named after a URL) when
    # the password looks generated: "mailto:jo@x.org", "npm:lodash@4.17.21", "nginx:1.25-alpine@sha256:…" stay
    Detector(
        kind="url-password",
        pattern=r"(?:^|[^A-Za-z0-9_.%\-])[A-Za-z0-9_.%\-]+:(?P<value>[^\s/:@\"'<>]{8,})@[A-Za-z0-9\[]",
        secret_groups=("value",),
        evidence=Evidence.WEAK,
    ),
    # a URL whose user part alone is a key: a Sentry DSN (https://<32 hex>@o1.ingest.sentry.io/2), a token used as
    # the user of a git or registry URL; a plain user name (ssh://git@host, mailto-like user@host) is no key
    Detector(
        kind="url-token",
        pattern=r"\b[A-Za-z][A-Za-z0-9+.\-]*://(?P<value>[^\s:/@\"'<>]{16,})@[A-Za-z0-9\[]",
        secret_groups=("value",),
        check=_random_or_generated,
    ),
    # Azure storage / service bus connection strings and SAS signatures
    Detector(
        kind="azure-key",
        pattern=r"(?i:AccountKey|SharedAccessKey|SharedSecret|SharedAccessSignature)=(?P<value>[^;\s\"'<>]+)",
        secret_groups=("value",),
        evidence=Evidence.STRONG,
    ),
    Detector(
        kind="azure-key",
        pattern=r"[?&]sig=(?P<value>[A-Za-z0-9%+/=]{16,})",
        secret_groups=("value",),
    ),
    # a URL's query parameter named only "key" or for a signature: ?key=AIza…, &signature=…, ?X-Amz-Signature=…
    # (the names that end in token, secret or password are the assignment detectors')
    Detector(
        kind="api-key",
        pattern=r"[?&](?i:key|api[_-]?key|apikey|auth|signature|x-amz-signature|x-goog-signature)=(?P<value>[^&#\s'\"<>]+)",
        secret_groups=("value",),
        evidence=Evidence.WEAK,  # "?key=value%23still-query" in a URL parser's tests: random values only
    ),
    # Cookie: / Set-Cookie: headers and curl's -b/--cookie: a session cookie is a bearer credential. The whole
    # value is masked when one of its cookies looks generated: RE2 keeps one capture of a repeated group only
    Detector(
        kind="cookie",
        pattern=r"(?i:\b(?:set-)?cookie\\?[\"']?[ \t]*:[ \t]*|(?:^|[ \t])(?:-b|--cookie)[ \t=]+[\"']?)"
        r"(?P<value>[A-Za-z0-9_.\-]+=[^\s;\"'`]*(?:;[ \t]*[A-Za-z0-9_.\-]+(?:=[^\s;\"'`]*)?)*)",
        secret_groups=("value",),
        check=_has_generated_cookie,
    ),
    # A 40-character AWS secret access key next to an access key id, either side, within 120 characters (also on
    # the next line: a pasted id/secret pair is two lines). The separator may be a single character.
    Detector(
        kind="aws-secret-key",
        pattern=r"(?:AKIA|ASIA)[A-Z0-9]{16}(?s:.{0,120}?)[^A-Za-z0-9/+=](?P<value>[A-Za-z0-9/+]{40})"
        r"(?:$|[^A-Za-z0-9/+=])",
        secret_groups=("value",),
        check=_is_aws_secret,
    ),
    Detector(
        kind="aws-secret-key",
        pattern=r"(?:^|[^A-Za-z0-9/+=])(?P<value>[A-Za-z0-9/+]{40})[^A-Za-z0-9/+=](?s:.{0,120}?)(?:AKIA|ASIA)[A-Z0-9]{16}",
        secret_groups=("value",),
        check=_is_aws_secret,
    ),
]
