"""aifab's access checks and secret masking for the push tasks (ansible/tasks/push-*.yml).

`aifab_access_problems(text, os, login_user, connection, mgmt_ip, via_aaa)` lists why pushing `text`
(a rendered or assembled config: NX-OS or EOS CLI, or SONiC config_db.json) would lock Ansible out:

- the login user Ansible uses is not a local user of the file with a role that can configure (NX-OS
  `role network-admin`, EOS `privilege 15` or `role network-admin`), unless the file configures AAA
  login and the operator says the AAA servers know that user (`via_aaa`); on SONiC, whose users are
  Linux accounts a config reload leaves alone, the file's AAA login methods must keep `local` (or
  `via_aaa`);
- the transport the inventory connects over is turned off in the file (`network_cli`/`ssh`: NX-OS
  `no feature ssh`, EOS `management ssh` with `shutdown`; `httpapi`: NX-OS without `feature nxapi`, EOS
  without `management api http-commands`);
- the management address Ansible connects to is on no interface of the file.

`aifab_mask(text)` hides secret values in text Ansible prints (the same words as `aifab drift`:
src/delivery/mask.rs). `aifab_config_lines(text)` is a config's lines without comments, blank lines or
`end`, trailing spaces removed: two `show running-config` texts of an unchanged switch have the same.
"""

import json
import re

KEYWORDS = {
    "key", "key-string", "password", "secret", "auth", "priv", "community", "passphrase",
    "passkey", "authentication-key",
}
NOT_VALUES = {"strength-check", "encryption", "required"}
TYPE_WORDS = {
    "md5", "sha", "sha1", "sha-1", "sha224", "sha-224", "sha256", "sha-256", "sha384", "sha-384",
    "sha512", "sha-512", "aes", "aes-128", "aes128", "aes192", "aes256", "des", "3des", "encrypted",
}


def _is_type_word(w):
    return (w.isdigit() and len(w) <= 2) or w in TYPE_WORDS


def _mask_line(line):
    words = line.split(" ")
    hide = [False] * len(words)
    i = 0
    while i < len(words):
        if words[i] in KEYWORDS:
            j = i + 1
            if j < len(words) and _is_type_word(words[j]) and j + 1 < len(words):
                j += 1
            if j < len(words) and words[j] and words[j] not in NOT_VALUES:
                if not words[j].startswith(("AIFAB_SECRET(", "AIFAB_ENV(")):
                    hide[j] = True
                i = j
        i += 1
    return " ".join("<secret>" if h else w for w, h in zip(words, hide))


def aifab_mask(value):
    """`value` (a text or a list of texts) with every secret value as `<secret>`."""
    if isinstance(value, (list, tuple)):
        return [aifab_mask(v) for v in value]
    return "\n".join(_mask_line(l) for l in str(value).split("\n"))


# Sections a rollout's drain adds to the running-config (drain-eos.yml: `maintenance` / `unit System`
# / `quiesce`; drain-nxos.yml: NX-OS GIR's maintenance profiles and the `isolate` it puts under
# `router bgp`): the freshness check ignores them, as they come and go with the drain.
DRAIN_TOPS = (r"^maintenance$", r"^configure maintenance profile ", r"^system mode maintenance")
DRAIN_CHILDREN = (r"^\s+isolate$",)


def aifab_config_lines(text, ignore_drain=True):
    """The config lines of `text`: no comment (`!`), blank or `end` line, trailing spaces removed,
    and (with `ignore_drain`) none of what a drain adds (DRAIN_TOPS sections, DRAIN_CHILDREN lines)."""
    out = []
    skipping = False
    for line in str(text).splitlines():
        line = line.rstrip()
        t = line.strip()
        if not t or t.startswith("!") or line == "end":
            continue
        top = line[:1] not in (" ", "\t")
        if top:
            skipping = ignore_drain and any(re.match(p, line) for p in DRAIN_TOPS)
        if skipping or (ignore_drain and any(re.match(p, line) for p in DRAIN_CHILDREN)):
            continue
        out.append(line)
    return out


def _section(text, top):
    """The lines of the first top-level section of `text` whose first line matches regex `top`."""
    lines = str(text).splitlines()
    for i, line in enumerate(lines):
        if re.match(top, line):
            body = [line]
            for child in lines[i + 1:]:
                if child[:1] in (" ", "\t"):
                    body.append(child)
                else:
                    break
            return body
    return None


def _transport(connection):
    name = str(connection or "").rsplit(".", 1)[-1]
    if name in ("network_cli", "ssh", "paramiko_ssh", "libssh"):
        return "ssh"
    if name == "httpapi":
        return "api"
    return None


def _cli_problems(text, os, user, transport, mgmt_ip, via_aaa):
    problems = []
    users = re.findall(r"(?m)^username (\S+) (.*)$", text)
    admins = []
    for name, rest in users:
        if os == "nxos" and re.search(r"\brole network-admin\b", rest):
            admins.append(name)
        if os == "eos" and re.search(r"\b(privilege 15|role network-admin)\b", rest):
            admins.append(name)
    aaa = re.search(r"(?m)^aaa authentication login default group ", text) is not None
    if user not in admins and not (aaa and via_aaa):
        problems.append(
            "the login user `%s` is not a local user with a role that can configure (%s)%s: "
            "the push would remove it and the next run could not log in; log in as one of them "
            "(-e ansible_user=...), add the user to the intent's baseline.users with role admin, or, "
            "when the AAA servers know `%s`, pass -e aifab_login_via_aaa=true"
            % (
                user,
                ", ".join(admins) if admins else "the file has none",
                "" if aaa else " and the file configures no AAA login",
                user,
            )
        )
    if transport == "ssh":
        if os == "nxos" and re.search(r"(?m)^no feature ssh$", text):
            problems.append("the file turns SSH off (`no feature ssh`) while Ansible connects over SSH")
        ssh = _section(text, r"^management ssh$") if os == "eos" else None
        if ssh and any(l.strip() == "shutdown" for l in ssh[1:]):
            problems.append("the file shuts `management ssh` while Ansible connects over SSH")
    if transport == "api":
        if os == "nxos" and not re.search(r"(?m)^feature nxapi$", text):
            problems.append("the file has no `feature nxapi` while Ansible connects over NX-API")
        if os == "eos" and not _section(text, r"^management api http-commands$"):
            problems.append("the file has no `management api http-commands` while Ansible connects over eAPI")
    if mgmt_ip and not re.search(
        r"(?m)^ +ip(v6)? address " + re.escape(mgmt_ip) + r"/", text
    ):
        problems.append("no interface of the file has the management address %s Ansible connects to" % mgmt_ip)
    return problems


def _sonic_problems(text, transport, mgmt_ip, via_aaa):
    problems = []
    try:
        db = json.loads(text)
    except ValueError as e:
        return ["the file is not JSON: %s" % e]
    login = str(db.get("AAA", {}).get("authentication", {}).get("login", "local"))
    if "local" not in [m.strip() for m in login.split(",")] and not via_aaa:
        problems.append(
            "its AAA login methods (`%s`) leave out `local`: the Linux account Ansible logs in with "
            "would need the AAA servers; pass -e aifab_login_via_aaa=true when they know it" % login
        )
    mgmt = list(db.get("MGMT_INTERFACE", {}))
    if not mgmt:
        problems.append("it has no MGMT_INTERFACE: config reload would drop the management address (unless eth0 uses DHCP)")
    elif mgmt_ip and not any(("|" + mgmt_ip + "/") in k for k in mgmt):
        problems.append("its MGMT_INTERFACE has no entry for %s, the address Ansible connects to" % mgmt_ip)
    if transport == "ssh" and str(db.get("SSH_SERVER", {}).get("POLICIES", {}).get("enabled", "true")).lower() == "false":
        problems.append("it turns the SSH server off while Ansible connects over SSH")
    return problems


def aifab_access_problems(text, os, login_user, connection, mgmt_ip="", via_aaa=False):
    """Why pushing `text` to a switch of `os` would lock the login user out ([] when it would not)."""
    transport = _transport(connection)
    via_aaa = str(via_aaa).lower() in ("true", "yes", "1")
    if os == "sonic":
        return _sonic_problems(str(text), transport, mgmt_ip, via_aaa)
    return _cli_problems(str(text), os, str(login_user), transport, mgmt_ip, via_aaa)


class FilterModule(object):
    """Ansible's entry point for the filters of this file."""

    def filters(self):
        return {
            "aifab_access_problems": aifab_access_problems,
            "aifab_mask": aifab_mask,
            "aifab_config_lines": aifab_config_lines,
        }
