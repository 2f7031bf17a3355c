#!/usr/bin/env python3
"""Renders a SONiC SKU's buffers.json.j2 with config_db.json contents, as `config qos reload` does.

`config qos reload` runs sonic-cfggen with the running CONFIG_DB and the SKU's buffers.json.j2, which
includes SONiC's files/build_templates/buffers_config.j2; that template picks the SKU's
buffers_defaults_<t0|t1|t2|lt2|ft2>.j2 from DEVICE_METADATA `type`. This script reproduces the render:
sonic-cfggen's Jinja2 environment (trim_blocks), the SKU folder and the build templates as the search
path, table keys split on `|` into tuples as ConfigDBConnector.deserialize_key does, and the output
parsed as JSON (sonic-cfggen writes it to CONFIG_DB as JSON). On a SKU in the dynamic buffer model
(NVIDIA's), `config qos reload` renders buffers_dynamic.json.j2 instead (sonic-utilities config/main.py,
`vendors_supporting_dynamic_buffer`): the request's "entry" names the template.

Input (stdin, JSON):  {"search": ["<sku dir>", "<build_templates dir>"],
                       "entry": "buffers.json.j2" (the default) | "buffers_dynamic.json.j2",
                       "devices": {"<name>": <config_db.json object>, ...}}
Output (stdout, JSON): {"<name>": <rendered buffer tables>, ...}
A template or JSON error exits non-zero with the device and error on stderr.
"""

import json
import sys

import jinja2

ENTRY = "buffers.json.j2"


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
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(request["search"]), trim_blocks=True
    )
    template = env.get_template(request.get("entry", ENTRY))
    result = {}
    for name, config_db in request["devices"].items():
        try:
            text = template.render(**deserialize(config_db))
            result[name] = json.loads(text)
        except (jinja2.TemplateError, ValueError) as e:
            sys.exit(f"{name}: {type(e).__name__}: {e}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
