#!/usr/bin/env python3
"""Runs sonic-utilities' real generic_config_updater field operation validators on JSON patches.

usage: validate.py <release-gcu-dir> <build_version> < cases.json
cases.json: [{"host": ..., "hwsku": ..., "asic_type": "broadcom"|"mellanox" (default broadcom), "ops": [RFC 6902 operations]}]
prints: {"<host>": [true|false per operation]} - whether `config apply-patch` accepts each operation,
as gu_common.py's validate_field_operation decides it (the fixed illegal removes, then every validator
the table names in gcu_field_operation_validators.conf.json). The switch-side imports are stubbed:
device_info (the case's asic_type, the given build_version, not a chassis), the HWSKU command, and
STATE_DB (no supported speed/FEC lists).
"""
import importlib.util
import inspect
import json
import os
import re
import sys
import types

gcu_dir, build_version = sys.argv[1], sys.argv[2]
HWSKU = {"value": ""}
ASIC_TYPE = {"value": "broadcom"}


def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


device_info = types.SimpleNamespace(
    get_sonic_version_info=lambda: {"asic_type": ASIC_TYPE["value"], "build_version": build_version},
    is_chassis=lambda: False,
)
stub("sonic_py_common", device_info=device_info)


class _Table:
    def __init__(self, db, name):
        pass

    def hget(self, key, field):
        return (False, "")


stub("swsscommon", swsscommon=types.SimpleNamespace(DBConnector=lambda *a, **k: None, Table=_Table))
stub("utilities_common")
stub("utilities_common.constants", DEFAULT_SUPPORTED_FECS_LIST=["rs", "fc", "none", "auto"])
pkg = stub("generic_config_updater")
pkg.__path__ = [gcu_dir]


class GenericConfigUpdaterError(Exception):
    pass


stub("generic_config_updater.gu_common", GenericConfigUpdaterError=GenericConfigUpdaterError)

path = os.path.join(gcu_dir, "field_operation_validators.py")
spec = importlib.util.spec_from_file_location("generic_config_updater.field_operation_validators", path)
fov = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = fov
spec.loader.exec_module(fov)


class _Proc:
    def communicate(self):
        return (HWSKU["value"] + "\n", None)


fov.subprocess = types.SimpleNamespace(Popen=lambda *a, **k: _Proc(), PIPE=None)

with open(os.path.join(gcu_dir, "gcu_field_operation_validators.conf.json")) as f:
    conf = json.load(f)

# gu_common.py validate_field_operation: removes refused whatever the ASIC.
ILLEGAL_REMOVES = ["/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL", "/LOOPBACK_INTERFACE/Loopback0"]


def accepted(op):
    if op["op"] == "remove" and op["path"] in ILLEGAL_REMOVES:
        return False
    m = re.search(r"\/([^\/]+)(\/|$)", op["path"])
    if m is None:
        return False
    for cmd in conf["tables"].get(m.group(1), {}).get("field_operation_validators", []):
        fn = getattr(fov, cmd.split(".")[-1])
        args = (None, op) if len(inspect.signature(fn).parameters) == 2 else (op,)
        try:
            if not fn(*args):
                return False
        except Exception:  # a KeyError in the validator is a rejection too
            return False
    return True


out = {}
for case in json.load(sys.stdin):
    HWSKU["value"] = case["hwsku"]
    ASIC_TYPE["value"] = case.get("asic_type", "broadcom")
    out[case["host"]] = [accepted(op) for op in case["ops"]]
json.dump(out, sys.stdout)
