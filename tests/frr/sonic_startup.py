#!/usr/bin/env python3
"""Starts SONiC's bgp container the way a switch does, without the switch, for rendered config_db files.

For one SONiC release (a `shared/sonic-releases/<release>/routing` folder, sonic-buildimage files unchanged):

1. Lays out the container's files under a scratch root: docker-fpm-frr's `frr/` templates at
   /usr/share/sonic/templates (its Dockerfile's COPY), frrcfgd's templates flat in
   /usr/local/sonic/frrcfgd (sonic-frr-mgmt-framework's setup.py data_files), the release's
   constants.yml at /etc/sonic/constants.yml.
2. Runs the release's own docker_init.sh with bash. Its absolute paths are moved under the scratch
   root, `exec supervisord` becomes the end of the script, chown/chmod/ip do nothing, and
   `sonic-cfggen` is the release's own sonic-cfggen reading the device's config_db.json (`-d`
   becomes `-j <file>`, the same data ConfigDBConnector.get_config() returns), its Jinja2 loader
   rooted in the scratch root (tests/frr/cfggen_shim.py). jq is the system's.
3. When the rendered supervisord.conf starts bgpcfgd (SONiC's default "separated" mode), runs the
   release's own bgpcfgd: its main.do_work() with every manager it builds, fed the config_db tables
   the way its Runner delivers them (a SET per key), STATE_DB's INTERFACE_TABLE as intfmgrd fills it
   ("state": "ok" for each address), and an FRR whose running config is the daemon config files
   plus every command bgpcfgd pushed. Then TSA: BGP_DEVICE_GLOBAL|STATE tsa_enabled "true" (what the
   host's TSA script writes), and the commands bgpcfgd pushes for it; then TSB.

Input (stdin, JSON): {"routing": "<shared>/sonic-releases/<r>/routing", "constants": "<yml>",
                      "stubs": "<tests/frr/stubs>", "scratch": "<empty dir>",
                      "devices": {"<name>": <config_db.json object>, ...}}
Output (stdout, JSON): {"<name>": {"files": {"<path under /etc/frr>": "<text>", ...},
                                   "supervisord": ["<program>", ...], "init_rc": <exit code>,
                                   "init_stderr": "<text>",
                                   "bgpcfgd": "<commands>", "tsa": "<commands>", "tsb": "<commands>",
                                   "bgpcfgd_errors": ["<syslog ERR/CRIT line>", ...]}, ...}
"""

import contextlib
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import syslog
import types
import warnings

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def lay_out(root, routing, constants):
    """The bgp container's files under `root`."""
    frr = os.path.join(routing, "docker-fpm-frr", "frr")
    shutil.copytree(frr, os.path.join(root, "usr/share/sonic/templates"))
    flat = os.path.join(root, "usr/local/sonic/frrcfgd")
    os.makedirs(flat)
    templates = os.path.join(routing, "sonic-frr-mgmt-framework", "templates")
    for daemon in sorted(os.listdir(templates)):
        for name in sorted(os.listdir(os.path.join(templates, daemon))):
            shutil.copy(os.path.join(templates, daemon, name), flat)
    for folder in ("etc/sonic", "usr/sbin", "usr/bin", "var"):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    shutil.copy(constants, os.path.join(root, "etc/sonic/constants.yml"))


def init_script(routing, root):
    """docker_init.sh with its absolute paths under `root` and supervisord not started."""
    text = open(os.path.join(routing, "docker-fpm-frr", "docker_init.sh")).read()
    if "exec /usr/local/bin/supervisord" not in text:
        raise SystemExit("docker_init.sh no longer ends with exec supervisord: read it again")
    text = text.replace("exec /usr/local/bin/supervisord", "exit 0")
    # Every absolute path the script names lives in /etc, /usr or /var.
    text = re.sub(r"(?<![\w$.-])/(etc|usr|var)/", lambda m: root + "/" + m.group(1) + "/", text)
    stubs = "chown() { :; }\nchmod() { :; }\nip() { :; }\n"
    return text.replace("\n", "\n" + stubs, 1) if text.startswith("#!") else stubs + text


def cfggen_bin(bindir, routing, stubs, root, config_db):
    """A `sonic-cfggen` on PATH that runs the release's own with -j instead of -d."""
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, "sonic-cfggen")
    with open(path, "w") as f:
        f.write(
            "#!/bin/sh\nexec %s %s %s %s %s %s \"$@\"\n"
            % (
                sys.executable,
                os.path.join(HERE, "cfggen_shim.py"),
                os.path.join(routing, "sonic-config-engine"),
                stubs,
                root,
                config_db,
            )
        )
    os.chmod(path, 0o755)


def frr_files(root):
    out = {}
    etc = os.path.join(root, "etc/frr")
    for name in sorted(os.listdir(etc)) if os.path.isdir(etc) else []:
        with open(os.path.join(etc, name)) as f:
            out[name] = f.read()
    return out


def programs(root):
    conf = os.path.join(root, "etc/supervisor/conf.d/supervisord.conf")
    if not os.path.isfile(conf):
        return []
    return re.findall(r"^\[program:([^\]]+)\]", open(conf).read(), re.M)


class FakeFrr:
    """bgpcfgd's FRR: `show running-config` is the daemon files plus what was pushed so far."""

    def __init__(self, base):
        self.base = base
        self.pushed = []

    def wait_for_daemons(self, seconds):
        pass

    def get_config(self):
        return self.base + "\n" + "\n".join(self.pushed)

    def write(self, text):
        self.pushed.append(text)
        return True

    def restart_peer_groups(self, groups):
        return True


class Done(Exception):
    """Ends do_work() once the runner has delivered everything."""


def db_fields(row):
    """A config_db row as Redis holds it (sonic-swss-common configdb.h typed_to_raw): lists are
    `field@` with comma-joined values, and a row without fields is the placeholder NULL: NULL."""
    if not row:
        return {"NULL": "NULL"}
    out = {}
    for k, v in row.items():
        if isinstance(v, list):
            out[k + "@"] = ",".join(v)
        else:
            out[k] = v
    return out


def run_bgpcfgd(routing, stubs, root, config_db, running):
    """The release's bgpcfgd over `config_db`: (initial commands, TSA commands, TSB commands, errors)."""
    for name in list(sys.modules):
        if name == "bgpcfgd" or name.startswith("bgpcfgd."):
            del sys.modules[name]
    sys.path[:0] = [stubs, os.path.join(routing, "sonic-bgpcfgd")]
    real_syslog = syslog.syslog
    try:
        errors = []

        def log(level, msg=None):
            if msg is None:
                return
            if level <= syslog.LOG_ERR:
                errors.append(msg)
            if os.environ.get("AIFAB_BGPCFGD_LOG"):
                print(level, msg, file=sys.stderr)

        syslog.syslog = log
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            main = importlib.import_module("bgpcfgd.main")
        # BGPPeerMgrBase.load_peers asks FRR for the neighbors it already has: at container start
        # bgpd holds bgpd.conf, whose `router bgp` has none (bgpcfgd adds them).
        importlib.import_module("swsscommon.swsscommon").CONFIG_DB = config_db
        peers = importlib.import_module("bgpcfgd.managers_bgp")
        peers.run_command = vtysh_at_start
        template = importlib.import_module("bgpcfgd.template")
        frr = FakeFrr(running)
        state = {}

        class Runner:
            def __init__(self, cfg_mgr):
                self.cfg_mgr = cfg_mgr
                self.managers = []

            def add_manager(self, mgr):
                self.managers.append(mgr)

            def deliver(self, db, table, key, fields):
                for m in self.managers:
                    if m.get_database() == db and m.get_table_name() == table:
                        m.handler(key, "SET", dict(fields))

            def run(self):
                tables = []
                for m in self.managers:
                    t = (m.get_database(), m.get_table_name())
                    if t not in tables:
                        tables.append(t)
                for db, table in tables:
                    rows = {}
                    if db == "CONFIG_DB":
                        rows = config_db.get(table, {})
                    elif db == "STATE_DB" and table == "INTERFACE_TABLE":
                        rows = intf_state(config_db)
                    for key in sorted(rows):
                        self.deliver(db, table, key, db_fields(rows[key]))
                self.cfg_mgr.commit()
                state["initial"] = list(frr.pushed)
                self.deliver("CONFIG_DB", "BGP_DEVICE_GLOBAL", "STATE", {"tsa_enabled": "true"})
                self.cfg_mgr.commit()
                state["tsa"] = frr.pushed[len(state["initial"]):]
                mark = len(frr.pushed)
                self.deliver("CONFIG_DB", "BGP_DEVICE_GLOBAL", "STATE", {"tsa_enabled": "false"})
                self.cfg_mgr.commit()
                state["tsb"] = frr.pushed[mark:]
                raise Done()

        class Timer:
            def run(self):
                pass

        with open(os.path.join(root, "etc/sonic/constants.yml")) as f:
            constants = yaml.safe_load(f)
        main.FRR = lambda daemons: frr
        main.Runner = Runner
        main.StaticRouteTimer = Timer
        main.read_constants = lambda: constants["constants"]
        fabric = template.TemplateFabric
        main.TemplateFabric = lambda: fabric(os.path.join(root, "usr/share/sonic/templates"))
        # master waits for mgmtd with `vtysh -c 'show mgmt datastore all'` and sleeps between tries.
        if hasattr(main, "subprocess"):
            main.subprocess = types.SimpleNamespace(
                check_output=lambda *a, **k: "", DEVNULL=subprocess.DEVNULL
            )
        if hasattr(main, "time"):
            main.time = types.SimpleNamespace(sleep=lambda s: None, time=lambda: 0)
        try:
            main.do_work()
        except Done:
            pass
        join = "\n".join
        return join(state["initial"]), join(state["tsa"]), join(state["tsb"]), errors
    finally:
        syslog.syslog = real_syslog
        del sys.path[:2]


def vtysh_at_start(command, *args, **kwargs):
    """FRR's answers to the commands bgpcfgd runs while it starts."""
    answers = {
        "show bgp vrfs json": {"vrfs": {"default": {}}},
        "show bgp vrf default neighbors json": {},
    }
    asked = command[command.index("-c") + 1] if command[:1] == ["vtysh"] and "-c" in command else None
    if asked in answers:
        return 0, json.dumps(answers[asked]), ""
    raise RuntimeError("bgpcfgd ran %r, which the test does not answer" % (command,))


def intf_state(config_db):
    """STATE_DB INTERFACE_TABLE as intfmgrd leaves it once every address is up."""
    rows = {}
    for table in ("INTERFACE", "LOOPBACK_INTERFACE", "VLAN_INTERFACE"):
        for key in config_db.get(table, {}):
            if "|" in key:
                rows[key] = {"state": "ok"}
    return rows


# What `config reload` loads before the file it is given (/etc/sonic/init_cfg.json, from sonic-buildimage
# files/build_templates/init_cfg.json.j2), as far as the bgp container reads it: the bgp feature and
# the traffic-shift state a fresh load starts from.
INIT_CFG = {
    "FEATURE": {"bgp": {"state": "enabled", "auto_restart": "enabled"}},
    "BGP_DEVICE_GLOBAL": {"STATE": {"tsa_enabled": "false", "idf_isolation_state": "unisolated"}},
}


def loaded(config_db):
    """CONFIG_DB after `config reload -y <file>`: init_cfg.json, then the file, merged table by table."""
    db = json.loads(json.dumps(INIT_CFG))
    for table, rows in config_db.items():
        for key, row in rows.items():
            db.setdefault(table, {}).setdefault(key, {}).update(row)
    return db


def start(req, name, config_db, scratch):
    config_db = loaded(config_db)
    root = os.path.join(scratch, name.replace("/", "_"))
    os.makedirs(root)
    lay_out(root, req["routing"], req["constants"])
    db_file = os.path.join(root, "config_db.json")
    with open(db_file, "w") as f:
        json.dump(config_db, f)
    bindir = os.path.join(root, "stub-bin")
    cfggen_bin(bindir, req["routing"], req["stubs"], root, db_file)
    script = os.path.join(root, "docker_init.sh")
    with open(script, "w") as f:
        f.write(init_script(req["routing"], root))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    env.pop("NAMESPACE_ID", None)
    run = subprocess.run(["bash", script], env=env, capture_output=True, text=True)
    files = frr_files(root)
    out = {
        "files": files,
        "supervisord": programs(root),
        "init_rc": run.returncode,
        "init_stderr": run.stderr,
        "bgpcfgd": "",
        "tsa": "",
        "tsb": "",
        "bgpcfgd_errors": [],
    }
    if "bgpcfgd" in out["supervisord"]:
        running = "\n".join(files[n] for n in ("zebra.conf", "staticd.conf", "bgpd.conf") if n in files)
        with contextlib.redirect_stdout(io.StringIO()):
            initial, tsa, tsb, errors = run_bgpcfgd(
                req["routing"], req["stubs"], root, config_db, running
            )
        out.update(bgpcfgd=initial, tsa=tsa, tsb=tsb, bgpcfgd_errors=errors)
    return out


def main():
    req = json.load(sys.stdin)
    result = {}
    for name, config_db in req["devices"].items():
        result[name] = start(req, name, config_db, req["scratch"])
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
