"""Redaction at its edges: the boundaries that mutation testing (docs/mutation-testing.md) showed no other test
pinned down. Each case is a behaviour a user would notice: a secret left in clear text, or a harmless word masked."""

from __future__ import annotations

import collections
import math
import random
import re

import pytest

from memlens.redaction import DETECTORS, find_secrets, redact, redact_sequence, redact_title
from memlens.redaction.detector import Span
from memlens.redaction.scanner import _OVERLAP, _WINDOW, merge
from memlens.redaction.values import _CAMEL_CASE, Evidence, entropy, is_secret_value, looks_random

ANTHROPIC = "sk-ant-" + "Qx7vN2pL9mR4tK8wZ3yB6cF1"


def test_a_secret_past_the_first_window_is_found() -> None:
    """The scan reads overlapping windows; a secret just after the first window's overlap must still be found."""
    at = _WINDOW - _OVERLAP // 2  # inside the first window's tail and the second window's head
    for offset in (at, _WINDOW + 500, 2 * _WINDOW + 100):
        text = "lorem ipsum " * (offset // 12) + " " + ANTHROPIC + " " + "dolor sit " * 3000
        assert ANTHROPIC not in redact(text), offset
        assert [s.kind for s in find_secrets(text)] == ["anthropic-key"]


def test_token_detectors_start_at_a_word() -> None:
    """ "task-ant-…" is not an Anthropic key: a token format only counts from the start of a word."""
    assert redact(f"see {ANTHROPIC} now") == "see [REDACTED:anthropic-key] now"
    glued = "mask" + ANTHROPIC.removeprefix("sk")  # "mask-ant-…"
    assert [s.kind for s in find_secrets(f"see {glued} now")] != ["anthropic-key"]


def test_a_secret_at_the_very_start_is_found() -> None:
    """The word-start check looks at the character before the match; at offset 0 there is none (not the last one)."""
    assert redact(f"{ANTHROPIC} is the key") == "[REDACTED:anthropic-key] is the key"


def test_openai_and_slack_shapes_need_a_digit() -> None:
    """Words that only look like a token prefix ("sk-proj-readme-…", "xoxb-…") stay; real ones go."""
    wordy = "sk-proj-readme-and-contributing-guide"
    assert redact(f"open {wordy} first") == f"open {wordy} first"
    assert redact("open sk-proj-Ab3dEf6hIj9kLm2nOp5q first") == "open [REDACTED:openai-key] first"
    assert redact("channel xoxb-release-notes-channel") == "channel xoxb-release-notes-channel"
    assert "xoxb-1234567890-abcdefghij" not in redact("token xoxb-1234567890-abcdefghij")


def test_merge_keeps_touching_spans_apart_and_names_the_longest() -> None:
    assert merge([Span("a", 0, 5), Span("b", 5, 9)]) == [Span("a", 0, 5), Span("b", 5, 9)]
    # A (10 chars) then B (7) then C (14): the merged span is named after C, the longest of the three
    assert merge([Span("A", 0, 10), Span("B", 5, 12), Span("C", 6, 20)]) == [Span("C", 0, 20)]
    # the first span's length, not its end, is what a later span must beat
    assert merge([Span("A", 2, 12), Span("B", 3, 15)]) == [Span("B", 2, 15)]
    assert merge([Span("A", 2, 12), Span("B", 3, 13)]) == [Span("A", 2, 13)]


def test_entropy_is_shannon_bits_per_character() -> None:
    assert entropy("") == 0.0
    assert entropy("aaaa") == 0.0
    assert entropy("ab") == pytest.approx(1.0)
    assert entropy("abcd") == pytest.approx(2.0)
    assert entropy("aab") == pytest.approx(-(2 / 3) * math.log2(2 / 3) - (1 / 3) * math.log2(1 / 3))


@pytest.mark.parametrize(
    ("value", "random"),
    [
        ("Xk3zp9Lq", True),  # 8 characters, three classes: a password
        ("Xk3zp9L", False),  # 7: too short to judge
        ("Xk3#p9Lq", False),  # "#" is outside the base64 alphabet entropy counts: 2.6 bits per character
        ("build-cache-v2", False),  # two classes and under 16: a name
        ("aB3dE6gH9jK2mN5p", True),  # 16, three classes
        ("Kq7Vx2Lp9Wz4Rt8Y", True),
        ("KqVxLpWzRtYmNbQc", True),  # 16 characters of two classes is long enough
        ("KqVxLpWzRtYmNbQ", False),  # 15 of two classes is not
        ("/usr/local/bin/Xk3p9Lq", False),  # a path
        ("0123456789abcdef0123", False),  # hex
    ],
)
def test_looks_random_boundaries(value: str, random: bool) -> None:
    assert looks_random(value) is random


def test_prose_values_need_four_characters() -> None:
    assert is_secret_value("Xk3z", Evidence.PROSE)
    assert not is_secret_value("Xk3", Evidence.PROSE)
    assert not is_secret_value("hunter", Evidence.PROSE)  # plain lowercase words stay


@pytest.mark.parametrize(
    "text",
    [
        "date -u +%Y-%m-%dT%H:%M:%S",
        "cloudToken := GetCloudToken()",
        "secret := NewSecret{}",
        "token = tokens[0]",
        "log.info('password: %s', user)",
        "url = 'token=%(token)s' % values",
        "commit_token_sha=4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "the login page asks for the password reset link",
        "ls -la ~/.ssh && grep -w password notes.txt",
        "src/main.c:12:5: error: unused variable",
        "key-value-store-for-the-cache-layer-in-go",
        "X-RateLimit-Remaining: 4999",
        '"private_key_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"',
        'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
        "12:30:45:00:01",
        "ERROR:0:main:foo:bar",
        "Certificate: MIIDXTCCAkWgAwIBAgIJAKZ",
        "git log --format=%H:%an:%s",
        "SECRET_KEY_BASE=$(rails secret)",
        "https://user@github.com/x.git",
        "CREATE TABLE users (password VARCHAR(255))",
        "docker login ghcr.io -u me --password-stdin",
        "ldapsearch -W -b dc=x",
        'echo "$DB:5432:*:app:$PW"',
        "const apiKey = 'sk-ant-' + 'a'.repeat(95);",  # a token's prefix in a test, no token (a real transcript)
    ],
)
def test_code_and_format_strings_are_no_secrets(text: str) -> None:
    """Format strings and code expressions after a key name stay readable (both seen masked in real transcripts)."""
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password=Xk3p9Lq2(", "Xk3p9Lq2"),  # a value with digits before "(" is still a value
        (
            "-----BEGIN OPENSSH PRIV\nATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n"
            "-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE",
        ),
        (
            '{"k": "-----BEGIN RSA PRIVATE KEY-----\\\\nMIIEpAIBAAKCAQEAzzz\\\\n-----END RSA PRIVATE KEY-----"}',
            "MIIEpAIBAAKCAQEAzzz",
        ),
        ("redis://:Pw3xYz9q@cache:6379", "Pw3xYz9q"),
    ],
)
def test_code_rule_and_wrapping_keep_detections(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_a_token_cut_between_two_messages_is_masked_in_both() -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    first, second = f"my token is {token[:20]}", f"{token[20:]} thanks"
    masked = redact_sequence(["hello", first, second, "bye"])
    assert masked[0] == "hello" and masked[3] == "bye"
    assert masked[1].startswith("my token is [REDACTED:") and masked[2] == "[REDACTED:github-token] thanks"
    # a cut at a space joins nothing: two clean messages stay as they are
    assert redact_sequence(["the value is ", "sk-proj-readme"]) == ["the value is ", "sk-proj-readme"]


@pytest.mark.parametrize(
    "secret",
    ["AKIA" + "ZDOC9IS0J8HT9LGM", "ghp_" + "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"],
)
def test_a_secret_that_ends_a_message_keeps_the_next_message_s_first_word(secret: str) -> None:
    first, second = f"deploy with the key {secret}", "I set DATABASE_URL in the deploy job"
    masked = redact_sequence([first, second])
    assert secret not in masked[0] and masked[0].startswith("deploy with the key [REDACTED:")
    assert masked[1] == second


def test_a_title_made_from_a_file_name_is_checked_with_its_hyphens() -> None:
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
    title = f"use my key {key}".replace("-", " ")  # SpecStory's title: the file name's hyphens as spaces
    assert "Ab3dEf6hIj9kLm2nOp5q" not in redact_title(title)
    assert redact_title("fix the login bug in sk proj readme") == "fix the login bug in sk proj readme"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('psql "host=db user=app password=Tr0ub4dor&3xyz"', 'psql "host=db user=app password=[REDACTED:password]"'),
        ("Server=db;Password=q8&Zx;Database=app", "Server=db;Password=[REDACTED:password];Database=app"),
        ("mysql -u root -pHu(n)ter2 app", "mysql -u root -p[REDACTED:password] app"),
        ("password=Pa(ss)w0rd!", "password=[REDACTED:password]"),
        # what follows a password and is not part of it stays readable
        ("https://x.test/login?password=abc123XY&user=me", "https://x.test/login?password=[REDACTED:password]&user=me"),
        ("export DB_PASSWORD=abc123&&make deploy", "export DB_PASSWORD=[REDACTED:password]&&make deploy"),
        ("connect(password=hunter2x), then", "connect(password=[REDACTED:password]), then"),
    ],
)
def test_a_password_holds_the_characters_that_end_other_values(text: str, shown: str) -> None:
    """`&`, `;`, `(` end a bare value in a URL, a shell line or a call; inside a password they showed its tail."""
    assert redact(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "password = getPassword(user)",
        "token = tokens[0]",
        "az login --service-principal -u http://ops-app --tenant contoso.example",  # a URL is no user:password
        "curl -u http://proxy.example:8080 https://x.test",
        "the password is hard-coded in the config",  # prose joins two or three words with hyphens
        "the token is not-yet-set",
        "openssl s_client -connect db.test:443 -keylogfile /tmp/keys.log",  # -k only as an option of its own
        "obj.items.getElementsByTagName(name)",
        "s.ThisIsAnAttributeNameHere",  # "s." and 24 letters: a name, not a Vault token
    ],
)
def test_code_and_prose_near_the_new_shapes_stay(text: str) -> None:
    assert redact(text) == text


def test_a_value_of_capitals_after_a_key_is_judged_at_once() -> None:
    """The camelCase test read "aBBB…B1" in 2^n ways (`(?:[A-Z][A-Za-z]*)+`): 30 capitals took 30 s, so one line of a
    transcript stalled indexing and a pasted query the CLI. With the old pattern this call never returns."""
    value = "a" + "B" * 200 + "1"
    assert value not in redact(f"password={value}")
    assert redact("password = userPassword") == "password = userPassword"  # a camelCase name is still a name


def test_camel_case_shape_is_the_nested_patterns_language() -> None:
    """The pattern without a nested repeat takes exactly the names the nested one took."""
    nested = re.compile(r"[A-Za-z][a-z]+(?:[A-Z][A-Za-z]*)+|[a-z](?:[A-Z][A-Za-z]*)+")
    rng = random.Random(17)
    for _ in range(20000):
        text = "".join(rng.choice("abAB1_") for _ in range(rng.randint(0, 12)))
        assert bool(_CAMEL_CASE.fullmatch(text)) == bool(nested.fullmatch(text)), text


# a proxy password, put together here so no credential-shaped literal sits in the repository
PROXY_PASSWORD = "Zq0B3JrT" + "AwR4y9oj7x"


@pytest.mark.parametrize(
    "text",
    [
        "export https_proxy=alice:{pw}@proxy.corp:3128",
        "HTTP_PROXY=alice:{pw}@10.0.0.1:8080 npm install",
        "curl -x alice:{pw}@proxy.corp:3128 https://example.test",
        "pip install --proxy alice:{pw}@proxy.corp:3128 requests",
        "git config --global http.proxy alice:{pw}@proxy.corp:3128",
        "export http_proxy=bob:Winter2024!@proxy.corp:8080",  # after a proxy key, a password need not look random
        "rsync -av deploy:{pw}@host.example:/srv/app .",
        "/home/u/clones/https:__admin:{pw}@git.example/repo",  # a working folder named after a URL
    ],
)
def test_a_user_password_at_host_without_a_scheme_is_masked(text: str) -> None:
    """curl -x, pip --proxy, git's http.proxy and the *_proxy variables take user:password@host without a scheme;
    the URL detector needed the `://` and showed the password."""
    shown = redact(text.format(pw=PROXY_PASSWORD))
    assert PROXY_PASSWORD[:8] not in shown and "Winter2024" not in shown and "[REDACTED:url-password]@" in shown


@pytest.mark.parametrize(
    "text",
    [
        "mailto:john.doe@example.com",
        "npm:lodash@4.17.21",
        "nginx:1.25.3-alpine@sha256:0123456789abcdef",
        "git@github.com:org/repo.git",
        "git config http.proxy user:pass@proxy:8080",  # the words of a manual, not a password
        "email:alice@example.com",
        "Co-authored-by: Claude <noreply@anthropic.com>",
    ],
)
def test_names_at_hosts_stay(text: str) -> None:
    assert redact(text) == text


def test_every_detector_names_each_group_once() -> None:
    """A group named twice (two forms of a command, each with its value's groups) is read from its first place
    alone: a match of the second form held its secret in groups that were never read, and masked nothing
    (`htpasswd -b FILE USER PW` was shown whole while `htpasswd -bc …` was masked)."""
    named = {
        detector.kind + ": " + detector.pattern[:60]: re.findall(r"\(\?P<(\w+)>", detector.pattern)
        for detector in DETECTORS
    }
    twice = {where: [n for n, c in collections.Counter(names).items() if c > 1] for where, names in named.items()}
    assert {where: names for where, names in twice.items() if names} == {}


@pytest.mark.parametrize(
    "text",
    [
        "htpasswd -b /etc/nginx/.htpasswd admin {v}",
        "htpasswd -n -b admin {v}",
        "htpasswd -B -C 12 -b -c .htpasswd admin {v}",
        "net use Z: \\\\files\\share {v} /user:CORP\\deploy",
        "net use \\\\files\\ipc$ /USER:admin {v}",
        "rar x -p{v} backup.rar",
        "rclone config update nas pass {v}",
        "ansible_ssh_pass: {v}",
        "export SMTP_PASS='{v}'",
        "rman target sys/{v}@proddb",
        "SQL> CONNECT scott/{v}@orcl",
        "<settings><server><password>{v}</password></server></settings>",
        '<add key="ClearTextPassword" value="{v}" />',
        "<property name='jdbc.password' value='{v}'/>",
        '"adminPassword": {{"value": "{v}"}}',
        '"sqlAdminPassword": {{\n  "type": "securestring",\n  "value": "{v}"\n}}',
    ],
)
def test_a_password_a_command_or_markup_holds_in_a_shape_of_its_own_is_masked(text: str) -> None:
    value = "Tr0ub4dor-92x"
    assert value not in redact(text.format(v=value))


@pytest.mark.parametrize(
    "text",
    [
        "htpasswd -c .htpasswd admin",  # asks for the password
        "rar a -p backup.rar ./notes",  # a "-p" alone asks for it
        "net use Z: \\\\files\\share * /user:me",  # "*" asks for it
        "net use Z: \\\\files\\share /persistent:no",
        "rclone config create nas sftp host nas.local",
        "first_pass=true",
        "SKIP_PASS=1",
        "compass: north",
        "user_pass: ${USER_PASS}",
        'userpass = username + b":" + password',  # names run together: a variable in code
    ],
)
def test_the_same_commands_and_names_without_a_password_stay_whole(text: str) -> None:
    assert redact(text) == text


def test_a_second_net_use_in_joined_messages_is_read_too() -> None:
    """Messages joined into one line (a chunk's text): the first command's match must not take the next command's
    "net" as its password and end past it, leaving the second password whole."""
    joined = "net use Z: \\\\f\\share Pw1aaaaa /user:CORP\\deploy net use \\\\f\\ipc$ /user:admin Iwubr32!II3W6 then"
    masked = redact(joined)
    assert "Pw1aaaaa" not in masked and "Iwubr32!II3W6" not in masked
    assert "deploy net use" in masked


@pytest.mark.parametrize(
    "text",
    [
        "<password>${env.NEXUS_PASSWORD}</password>",  # a reference, resolved elsewhere
        "<passwordPolicy>strict</passwordPolicy>",  # the element names a policy, not a password
        '<add key="Theme" value="dark" />',
        '"password": {"type": "string", "minLength": 12}',  # a schema of a password, no value
        "<apiKey>see the vault</apiKey>",  # a key must look generated: these are words
    ],
)
def test_markup_that_holds_no_secret_stays_whole(text: str) -> None:
    assert redact(text) == text
