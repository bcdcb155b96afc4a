"""Secrets handed to a command on its standard input, as a class: every way of delivering one (a pipe from echo, printf,
yes, Write-Output or cat, or PowerShell's own string, with or without spaces; a here-string; a here-document, also as
a tool call's one line; inside `bash -c` or `ssh host '…'`) times every command that reads one (sudo with its options
read as sudo reads them, the logins' --password-stdin, passwd --stdin, chpasswd, htpasswd -i, smbpasswd -s, openssl's
-pass stdin, gh's --with-token, a secret store's set), and the commands that share their words but read no secret
left as they were."""

from __future__ import annotations

import pytest

from memlens.redaction import redact

SECRET = "Wd8kP2mQx7Lt"

# Each reader as written after the delivery, the secret it reads in its place; chpasswd reads "user:password".
READERS = [
    "sudo -S apt-get update",
    "sudo -u root -S apt-get update",
    "sudo -g wheel -S id",
    "sudo --user=root -S id",
    "sudo --user root -S id",
    "sudo -p '' -S id",
    'sudo -p "[sudo] password: " -S id',
    "sudo -uroot -S id",
    "sudo -kS id",
    "sudo -Su root id",
    "sudo -k -u deploy -S -p '' systemctl restart nginx",
    "sudo -S -p '' id",
    "sudo -H -u postgres -S psql",
    "sudo --preserve-env=PATH -S make install",
    "sudo -E --login-class staff -S id",
    "sudo -C 3 -D /srv -S make",
    "sudo --stdin id",
    "/usr/bin/sudo -u root -S id",
    "LC_ALL=C sudo -u root -S id",
    "env SUDO_PROMPT= sudo -u root -S id",
    "docker login ghcr.io -u ci --password-stdin",
    "podman login --password-stdin -u ci quay.io",
    "passwd --stdin deploy",
    "passwd deploy --stdin",
    "htpasswd -i .htpasswd admin",
    "htpasswd -B -C 12 -ci .htpasswd admin",
    "smbpasswd -s -a deploy",
    "smbpasswd -U deploy -s",
    "openssl enc -aes-256-cbc -pass stdin -in a.txt -out a.enc",
    "gh auth login --with-token",
    "gh secret set DB_PASSWORD",
    "wrangler secret put API_KEY",
    "vercel env add DB_PASSWORD production",
]

# Each way of handing the secret ({s}) to the reader ({r}).
DELIVERIES = [
    "echo {s} | {r}",
    "echo '{s}' | {r}",
    'echo -n "{s}"|{r}',
    "echo -ne {s}|{r}",
    "printf '%s\\n' '{s}' | {r}",
    'printf -- "%s" {s} | {r}',
    "printf '{s}\\n' | {r}",
    "yes '{s}' | {r}",
    "cat <<< {s} | {r}",
    "Write-Output '{s}' | {r}",
    '"{s}" | {r}',
    "$env:CI = 1; '{s}' | {r}",
    "{r} <<< '{s}'",
    "{r} <<<{s}",
    "{r} <<EOF\n{s}\nEOF",
    "{r} <<-'EOF'\n\t{s}\n\tEOF",
    "cat <<EOF | {r}\n{s}\nEOF",
    'cat << "END" |{r}\n  {s}\nEND',
    "{r} <<EOF {s} EOF",
    "cat <<'EOF' | {r} {s} EOF",
    "cd /srv && echo {s} | {r} && echo done",
]

# Wrappers that carry the whole line to another shell (a reader without quotes of its own inside them).
WRAPPERS = ["bash -c '{line}'", "ssh deploy@host '{line}'", 'ssh -t host "{line}"', 'sh -c "{line}"; echo ok']


def _said(reader: str) -> str:
    return f"deploy:{SECRET}" if reader.startswith("chpasswd") else SECRET


CASES = [delivery.format(s=_said(r), r=r) for r in [*READERS, "chpasswd"] for delivery in DELIVERIES]
CASES += [
    wrapper.format(line=delivery.format(s=SECRET, r=reader))
    for wrapper in WRAPPERS
    for delivery in ("echo {s} | {r}", "{r} <<< {s}")
    for reader in ("sudo -u root -S apt-get update", "docker login -u ci --password-stdin", "passwd --stdin deploy")
]
CASES.append(f"echo {SECRET} | ssh deploy@host sudo -u root -S reboot")


@pytest.mark.parametrize("text", CASES)
def test_a_secret_handed_on_standard_input_is_masked(text: str) -> None:
    assert SECRET not in redact(text)


# The same commands and deliveries holding no secret: a variable or a file handed on, no option that reads the
# input as a secret (sudo's -S only among its own options), a here-document that is a file's content.
MUST_SURVIVE = [
    "sudo pacman -Syu",
    "echo hello | sudo -u Sam tee /etc/motd",
    "echo hello | sudo -ukS tee /etc/motd",
    "echo hello | sudo -u root tee /etc/x -S",
    "echo 'cache cleared' | sudo -u www-data tee -a /var/log/app.log",
    "echo $PASSWORD | sudo -u root -S id",
    'echo "$REGISTRY_TOKEN" | docker login ghcr.io -u ci --password-stdin',
    'printf "%s" "${PW}" | passwd --stdin deploy',
    'sudo -u root -S id <<< "$PW"',
    "sudo -S id < /run/secrets/pw",
    "cat <<EOF | sudo -S id\n$SUDO_PASSWORD\nEOF",
    "sudo -u root tee /etc/apt/sources.list <<EOF\ndeb http://deb.debian.org/debian bookworm main\nEOF",
    "cat <<EOF | sudo tee /etc/motd\nWelcome to the build host\nEOF",
    "yes | sudo apt-get install nginx",
    "yes | sudo -S apt-get install nginx",
    "gh secret list; gh auth status",
    "echo done | passwd -S deploy",
    "sudo -u root tee /etc/motd <<EOF Welcome to the build host EOF",
    "cat <<EOF | sudo tee /etc/motd Welcome EOF",
    "pbpaste | docker login -u ci --password-stdin",
    'Get-Content "$HOME/registry.txt" | docker login -u ci --password-stdin',
    'say "done" | passwd --stdin deploy',
]


@pytest.mark.parametrize("text", MUST_SURVIVE)
def test_the_same_words_without_a_secret_survive(text: str) -> None:
    assert redact(text) == text
