#!/usr/bin/env python3
"""Renders SONiC frrcfgd's bgpd templates with config_db.json contents, as a SONiC switch would.

With DEVICE_METADATA docker_routing_config_mode "unified" and frr_mgmt_framework_config "true",
docker-fpm-frr builds /etc/frr/frr.conf at boot with sonic-cfggen from frrcfgd's templates
(gen_frr.conf.j2 includes frrcfgd's frr.conf.j2, which includes bgpd.conf.db.j2). This script
reproduces the BGP part of that render: the same Jinja2 environment as sonic-cfggen
(trim_blocks, the `ipv4` / `ipv6` filters), table keys split on `|` into tuples as
ConfigDBConnector.deserialize_key does, and the includes that live outside frrcfgd's bgpd folder
stubbed out.

Input (stdin, JSON):  {"releases": {"<release>": "<frrcfgd-bgpd dir>", ...},
                       "devices":  {"<name>": <config_db.json object>, ...}}
Output (stdout, JSON): {"<release>": {"<name>": "<rendered FRR text>", ...}, ...}
A template error exits non-zero with the release, device and error on stderr.
"""

import ipaddress
import json
import sys

import jinja2

# The entry template: the BGP part of frr.conf (frr.conf.j2 includes it after zebra/staticd).
ENTRY = "bgpd.conf.db.j2"

# Includes shipped outside frrcfgd's bgpd templates (docker-fpm-frr's common/ folder).
STUBS = {"common/daemons.common.conf.j2": ""}


def ip_version(value):
    """The IP version of an address or prefix, None when it is neither (netaddr.IPNetwork rules)."""
    if not value:
        return None
    try:
        return ipaddress.ip_network(str(value), strict=False).version
    except ValueError:
        return None


def environment(template_dir):
    """sonic-cfggen's Jinja2 environment (_get_jinja2_env), with the filters these templates use."""
    loader = jinja2.ChoiceLoader(
        [jinja2.DictLoader(STUBS), jinja2.FileSystemLoader(template_dir)]
    )
    env = jinja2.Environment(loader=loader, trim_blocks=True)
    env.filters["ipv4"] = lambda v: ip_version(v) == 4
    env.filters["ipv6"] = lambda v: ip_version(v) == 6
    return env


def deserialize(config_db):
    """FormatConverter.to_deserialized: a key with `|` becomes a tuple of its parts."""
    out = {}
    for table, entries in config_db.items():
        if isinstance(entries, dict):
            out[table] = {
                (tuple(k.split("|")) if "|" in k else k): v for k, v in entries.items()
            }
        else:
            out[table] = entries
    return out


def main():
    request = json.load(sys.stdin)
    result = {}
    for release, template_dir in request["releases"].items():
        template = environment(template_dir).get_template(ENTRY)
        rendered = result.setdefault(release, {})
        for name, config_db in request["devices"].items():
            try:
                rendered[name] = template.render(**deserialize(config_db))
            except jinja2.TemplateError as e:
                sys.exit(f"{release}: {name}: {type(e).__name__}: {e}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
