#!/usr/bin/env python3
"""Runs a release's own sonic-cfggen as docker_init.sh calls it, on a config_db.json file.

argv: <sonic-config-engine dir> <stubs dir> <scratch root> <config_db.json> <sonic-cfggen args...>

`-d` (read CONFIG_DB) becomes `-j <config_db.json>`: sonic-cfggen deep-merges both the same way
(FormatConverter.to_deserialized splits keys on `|`). Template search paths are absolute paths of
the bgp container (`/`, /usr/share/sonic/templates, /usr/local/sonic/frrcfgd); they are looked up
under the scratch root, where sonic_startup.py laid the container's files out.
"""

import os
import runpy
import sys

engine, stubs, root, config_db = sys.argv[1:5]
args = []
for a in sys.argv[5:]:
    args += ["-j", config_db] if a == "-d" else [a]
sys.path[:0] = [stubs, engine]

import jinja2  # noqa: E402

_loader_init = jinja2.FileSystemLoader.__init__


def rooted(self, searchpath, *a, **k):
    paths = [searchpath] if isinstance(searchpath, str) else list(searchpath)
    paths = [p if p.startswith(root) else root + p for p in map(str, paths)]
    _loader_init(self, paths, *a, **k)


jinja2.FileSystemLoader.__init__ = rooted
sys.argv = [os.path.join(engine, "sonic-cfggen")] + args
runpy.run_path(sys.argv[0], run_name="__main__")
