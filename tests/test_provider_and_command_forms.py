"""The provider token formats and command forms added from gitleaks' and trufflehog's rule lists: each is masked,
and the commands, prose and code that share their words or prefixes are left as they were.

Values are put together at run time, so no complete token sits in the repository for a scanner to flag."""

from __future__ import annotations

import base64
import random

import pytest

from memlens.redaction import redact

_RNG = random.Random(20261207)
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _draw(length: int, alphabet: str = _ALNUM) -> str:
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(length))
        has_digit = any(c.isdigit() for c in value) or not any(c.isdigit() for c in alphabet)
        if has_digit and (any(c.isalpha() for c in value) or not any(c.isalpha() for c in alphabet)):
            return value


PASSWORD = "Tr0ub4dor" + "&3xQ"
KEY = _draw(40)

COMMAND_FORMS = [
    (f"echo '{PASSWORD}' | docker login ghcr.io -u ci --password-stdin", PASSWORD),
    (f'printf "%s" "{PASSWORD}" | helm registry login reg.example.test -u ci --password-stdin', PASSWORD),
    (f"aws configure set aws_secret_access_key {KEY}", KEY),
    (f"aws configure set aws_session_token {KEY}", KEY),
    (f"yarn config set npmAuthToken {KEY}", KEY),
    (f"poetry config pypi-token.pypi {KEY}", KEY),
    (f"ngrok config add-authtoken {KEY}", KEY),
    (f"ngrok authtoken {KEY}", KEY),
    (f"poetry config http-basic.internal deploy {PASSWORD}", PASSWORD),
    (f'gh secret set DB_PASSWORD --body "{PASSWORD}"', PASSWORD),
    (f"gh secret set SERVICE_KEY -b {KEY}", KEY),
    (f"ssh-keygen -t ed25519 -N '{PASSWORD}' -f ~/.ssh/deploy", PASSWORD),
    (f"ssh-keygen -p -P {PASSWORD} -N {PASSWORD}x -f key", PASSWORD),
    (f"zip -P {PASSWORD} -r backup.zip data/", PASSWORD),
    (f"unzip -P {PASSWORD} backup.zip", PASSWORD),
    (f"7z a -p{PASSWORD} -mhe=on backup.7z data/", PASSWORD),
    (f"sqlplus scott/{PASSWORD}@//db.internal:1521/ORCL", PASSWORD),
    (f"keytool -importkeystore -srckeystore a.p12 -srcstorepass {PASSWORD} -destkeystore b.jks", PASSWORD),
    (f"xfreerdp /v:10.0.0.5 /u:admin /p:{PASSWORD}", PASSWORD),
    (f"nmcli dev wifi connect OfficeNet password {PASSWORD}", PASSWORD),
    (f"nmcli con modify OfficeNet wifi-sec.psk {PASSWORD}", PASSWORD),
    (f"wpa_passphrase OfficeNet {PASSWORD}", PASSWORD),
    (f"security add-generic-password -a ci -s deploy -w {PASSWORD}", PASSWORD),
    (f"mosquitto_pub -h broker -u dev -P {PASSWORD} -t t -m hi", PASSWORD),
    (f"rdesktop -u admin -p {PASSWORD} 10.0.0.5", PASSWORD),
    (f"rabbitmqctl change_password deploy {PASSWORD}", PASSWORD),
    (f"lftp -u deploy,{PASSWORD} sftp://files.example.test", PASSWORD),
    (f"http -a admin:{PASSWORD} POST https://api.example.test/items", PASSWORD),
    (f"xh --auth admin:{PASSWORD} api.example.test", PASSWORD),
    (f"Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={PASSWORD};Encrypt=yes", PASSWORD),
    ("Server=db;Uid=sa;Pwd=S3cr3t!x;", "S3cr3t!x"),  # short: a weak key's gate let it through
    ("Server=db;Uid=sa;Pwd={pa;ss" + "W0rd};", "pa;ssW0rd"),
]


@pytest.mark.parametrize(("text", "secret"), COMMAND_FORMS, ids=[t.split()[0] for t, _ in COMMAND_FORMS])
def test_a_secret_in_a_command_form_is_masked(text: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted and "[REDACTED:" in redacted, redacted


PROVIDER_TOKENS = [
    "pscale_" + "pw_" + _draw(43),
    "pscale_" + "oauth_" + _draw(43),
    "dckr_" + "oat_" + _draw(27),
    "tskey-" + "client-" + _draw(17) + "-" + _draw(33),
    "IQoJb3JpZ2luX2" + "Vj" + _draw(200, _ALNUM + "+/"),
    "CCI" + "PRJ_" + _draw(22) + "_" + _draw(40, "0123456789abcdef"),
    "sq" + "u_" + _draw(40, "0123456789abcdef"),
    "glf" + "fct-" + _draw(20),
    "rk_" + "prod_" + _draw(30),
    "AAAA" + _draw(7) + ":APA91b" + _draw(140),
    "EAA" + "G" + _draw(150),
    "A" * 22 + _draw(90),
    "xsmtp" + "sib-" + _draw(64, "0123456789abcdef") + "-" + _draw(16),
    "https://hooks." + "slack.com/triggers/T" + _draw(10) + "/" + _draw(13, "0123456789") + "/" + _draw(32),
    "access_token$" + "production$" + _draw(16, "abcdefghij0123456789") + "$" + _draw(32, "0123456789abcdef"),
    "sl." + "u." + _draw(140),
    "v1.0-" + _draw(24, "0123456789abcdef") + "-" + _draw(146, "0123456789abcdef"),
    "pat." + _draw(22) + "." + _draw(24) + "." + _draw(20),
]


@pytest.mark.parametrize("token", PROVIDER_TOKENS, ids=[t[:6] for t in PROVIDER_TOKENS])
def test_a_provider_token_is_masked_whole(token: str) -> None:
    redacted = redact(f"the client reads {token} from the keychain")
    assert redacted.startswith("the client reads [REDACTED:") and redacted.endswith("] from the keychain"), redacted


# A base64 run (an image pasted into a transcript) holding a token's prefix by chance; a snake_case name.
_BASE64_RUN = base64.b64encode(bytes(_RNG.randrange(256) for _ in range(3000))).decode()

MUST_SURVIVE = [
    "git config user.name 'Jo Doe' && git config --global core.editor vim",
    "npm config set registry https://registry.npmjs.org/ && aws configure set region us-east-1",
    "poetry config virtualenvs.in-project true; git config --global credential.helper store",
    "yarn config set npmAuthToken ${NPM_TOKEN}",
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/id_ed25519 && ssh-keygen -p -f ~/.ssh/id_rsa",
    "zip -r backup.zip data/ && unzip -p archive.zip notes.txt",
    "7z x archive.7z -o./out && 7z a -p archive.7z data/",
    "gh secret set DEPLOY_KEY < key.pem && gh secret list",
    "sqlplus / as sysdba; sqlplus -s /nolog",
    "nmcli dev wifi list; nmcli con up OfficeNet",
    "echo hello world; echo $GHCR_TOKEN | docker login ghcr.io -u ci --password-stdin",
    "http GET api.example.test/items Accept:application/json",
    "the rk_prod_ prefix, pscale_tkn_ tokens, tskey-auth- keys and dckr_pat_ tokens are secrets",
    "def load_fw_" + "20240101AbcdefGhijklmnopQRST(): pass  # a snake_case name, no key",
    "fc-2 and fc-layer and sk_test and pat.txt and st.session_state and 0.5 and sha256~ and A3-B4 paper",
    "the API-FIRST design, API-GATEWAY-CONFIGURATION-V2, the LTAI and AKID prefixes, SCW regions",
    "configure set auth-type basic; rabbitmqctl list_users; xfreerdp /v:host /u:admin /cert:ignore",
    "Connection=Server=db;Database=app;Trusted_Connection=True;",
    f"data:image/png;base64,{_BASE64_RUN[:300]}+1//0{_draw(60)}{_BASE64_RUN[300:600]}",
    f"data:image/png;base64,{_BASE64_RUN[:300]}/EAA{_draw(120)}{_BASE64_RUN[300:600]}",
    f"data:image/png;base64,{_BASE64_RUN}",
]


@pytest.mark.parametrize("text", MUST_SURVIVE, ids=[t[:24] for t in MUST_SURVIVE])
def test_commands_prefixes_and_base64_that_share_their_words_survive(text: str) -> None:
    assert redact(text) == text
