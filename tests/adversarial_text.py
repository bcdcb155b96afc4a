"""Adversarial input for redaction: long runs of secret prefixes and near-misses that a backtracking or quadratic
scan would take minutes over. test_redact.py checks what redaction makes of them; `python bench/secrets.py` times
them."""

from __future__ import annotations

# about 200 KB each
ADVERSARIAL_200K = [
    "a" * 200_000,
    "sk-" * 60_000,
    "password=" * 20_000,
    "password" * 20_000,
    "a_b.c-" * 30_000,
    "eyJ" + "a" * 200_000 + ".",
    "eyJaaaaaaaaaa." * 15_000,
    "-----BEGIN PRIVATE KEY-----" * 5_000,
    "-----BEGIN PRIVATE KEY-----" + "x" * 200_000,
    "https://u:" * 20_000,
    "http" * 50_000 + "://",
    "Bearer " * 30_000,
    "Authorization: " * 15_000,
    "AKIA" * 50_000,
    '"password": "' * 15_000,
]

# about a megabyte each
ADVERSARIAL_1M = [
    "a" * 1_000_000,
    "password=" * 110_000,
    "-----BEGIN PRIVATE KEY-----" + "A" * 1_000_000,
    "AKIA" + "A/+b" * 250_000,
    "//" * 500_000 + "/:_authToken=",
    "aws key " * 125_000,
    "x=" * 500_000,
    "https://u:" * 100_000,
]

ADVERSARIAL = ADVERSARIAL_200K + ADVERSARIAL_1M
