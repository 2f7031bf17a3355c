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

`aifab_mask(text)` hides secret values in text Ansible prints, by the table of secret words aifab
itself masks with (aifab_mask.json, written from src/review/mask/words.rs: the same lines come out of
both, tests/it/mask.rs). `aifab_config_lines(text)` is a config's lines without comments, blank lines or
`end`, trailing spaces removed: two `show running-config` texts of an unchanged switch have the same.
"""

import json
import os
import re

def _load_table():
    """The table of secret words (aifab_mask.json beside this file: src/review/mask/words.rs's TABLE,
    written by `AIFAB_BLESS=1 cargo test --test it mask::`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "aifab_mask.json")) as f:
        return json.load(f)


TABLE = _load_table()


def _spans(line):
    """The (start, end) of each word of `line`: cut at spaces, a word opening with `"` runs to its
    closing quote."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        start = i
        if line[i] == '"':
            k = line.find('"', i + 1)
            i = n if k < 0 else k + 1
        while i < n and line[i] != " ":
            i += 1
        out.append((start, i))
    return out


def _is_type_word(w):
    digits = 0 < len(w) <= TABLE["type_digits_max"] and all("0" <= c <= "9" for c in w)
    return digits or w in TABLE["type_words"]


def _is_value(w):
    bare = w.lstrip('"')
    return (
        w != ""
        and w not in TABLE["not_values"]
        and not any(bare.startswith(p) for p in TABLE["placeholders"])
        and bare.rstrip('"') != TABLE["hidden"]
    )


def _value_after_keyword(words, i):
    j, skipped = i + 1, 0
    while skipped < TABLE["max_type_words"] and j + 1 < len(words) and _is_type_word(words[j]):
        j += 1
        skipped += 1
    return j


def _ends_phrase(line, words, i):
    if i == 0:
        return False
    start = line.lstrip()
    for p in TABLE["phrases"]:
        if p["words"] == [words[i - 1], words[i]] and (
            p["line"] == "" or start.startswith(p["line"] + " ")
        ):
            return True
    return False


def _json_key(w):
    return w.startswith('"') and w.endswith('":') and w[1:-2] in TABLE["json_keys"]


def _hidden(line, words):
    """What to hide of each word: None, "whole", ("after", n) or "json" (src/review/mask/words.rs)."""
    hide = [None] * len(words)
    i = 0
    while i < len(words):
        w = words[i]
        flag = next((f for f in TABLE["flags"] if w.startswith(f)), None)
        if flag is not None:
            if len(w) > len(flag) and _is_value(w[len(flag):]):
                hide[i] = ("after", len(flag))
        elif w in TABLE["keywords"] and not (i > 0 and words[i - 1] in TABLE["not_after"]):
            ident = i == 0 and w in TABLE["id_first_words"]
            j = i + 1 if ident else _value_after_keyword(words, i)
            if j < len(words) and _is_value(words[j]):
                if not ident:
                    hide[j] = "whole"
                i = j
        elif _ends_phrase(line, words, i):
            if i + 1 < len(words) and _is_value(words[i + 1]):
                hide[i + 1] = "whole"
                i += 1
        elif _json_key(w) and i + 1 < len(words) and words[i + 1].startswith('"'):
            if _is_value(words[i + 1]):
                hide[i + 1] = "json"
            i += 1
        i += 1
    return hide


def _hide_word(word, how):
    hidden = TABLE["hidden"]
    if how == "whole":
        return hidden
    if how == "json":
        k = word.find('"', 1)
        return '"' + hidden + ("" if k < 0 else word[k:])
    return word[: how[1]] + hidden


def _mask_line(line):
    spans = _spans(line)
    words = [line[s:e] for s, e in spans]
    out, at = [], 0
    for (s, e), how in zip(spans, _hidden(line, words)):
        if how is not None:
            out.append(line[at:s])
            out.append(_hide_word(line[s:e], how))
            at = e
    out.append(line[at:])
    return "".join(out)


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
