"""aifab's EOS configuration-session filter for ansible/tasks/push-eos.yml.

`aifab_eos_session(text, session, timer)` turns a rendered EOS config into the CLI commands that load
it as the whole running-config with a rollback timer:

    configure session <session>
    rollback clean-config
    <every config line, as the file has it>
    commit timer <timer>

as arista.eos's own eos_config does for `replace: config` (cliconf edit_config: `!` comments, blank
lines and `end` are not sent; the text lines of a `banner` up to and including the line before `EOF`
are sent without waiting for a prompt, since EOS prints none there), except that the commit is timed:
EOS rolls the session back by itself unless `configure session <session> commit` confirms it before
the timer runs out.
"""

import re

SESSION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TIMER = re.compile(r"^[0-9]{2}:[0-5][0-9]:[0-5][0-9]$")


def aifab_eos_session(text, session, timer):
    """The eos_command `commands` list for `text` in session `session`, committed with `timer`."""
    if not SESSION.match(str(session)):
        raise ValueError("session name must be 1-64 of A-Za-z0-9_-: %r" % (session,))
    if not TIMER.match(str(timer)) or str(timer) == "00:00:00":
        raise ValueError("commit timer must be hh:mm:ss and not zero: %r" % (timer,))
    commands = [
        {"command": "configure session %s" % session},
        {"command": "rollback clean-config"},
    ]
    banner = False
    for line in str(text).splitlines():
        line = line.rstrip()
        if banner:
            if line == "EOF":
                banner = False
                commands.append({"command": line})
            else:
                commands.append({"command": line, "sendonly": True})
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("!") or stripped == "end":
            continue
        if stripped.startswith("banner "):
            banner = True
            commands.append({"command": line, "sendonly": True})
            continue
        commands.append({"command": line})
    if banner:
        raise ValueError("a banner has no closing EOF line")
    commands.append({"command": "commit timer %s" % timer})
    return commands


class FilterModule(object):
    """Ansible's entry point for the filters of this file."""

    def filters(self):
        return {"aifab_eos_session": aifab_eos_session}
