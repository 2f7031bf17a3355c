"""aifab's PFC watchdog counter filter for the rollout's drain and verify tasks.

`aifab_pfcwd_events(data, os)` counts the watchdog events in the parsed `| json` output of the OS's
watchdog show command. The counters only move while the watchdog has found a storm, so a count that
grew between the drain (before the change) and the verify (after it) means a storm during the change.

- EOS `show priority-flow-control counters watchdog | json`: {"interfaces": {<port>: {"txQueues":
  {<queue>: {"stuckCount": n, "recoveryCount": n, ...}}}}}; the sum of every `stuckCount`. EOS omits a
  port until its first event ({"interfaces": {}} on a switch without any): a missing port counts 0.
- NX-OS `show queuing pfc-queue detail | json`: TABLE_module / ROW_module / TABLE_queuing_interface /
  ROW_queuing_interface / TABLE_qosgrp_stats / ROW_qosgrp_stats / TABLE_qosgrp_stats_entry /
  ROW_qosgrp_stats_entry, each entry a `q-stat-type` and its counters; the sum of every numeric counter
  of every entry (all of them are watchdog actions: shutdowns, restores, packets dropped while shut).
  NX-API gives a ROW_* key a dict for one row and a list for several; both are read.
"""


def _rows(value):
    """A ROW_* value as a list of rows (NX-API prints a single row as a dict)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    return []


def _number(value):
    """An integer counter, or None for anything else (names, types, empty strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _eos(data):
    total = 0
    for port in (data.get("interfaces") or {}).values():
        for queue in ((port or {}).get("txQueues") or {}).values():
            total += _number((queue or {}).get("stuckCount")) or 0
    return total


def _nxos_entries(node):
    """Every ROW_qosgrp_stats_entry row anywhere below `node`."""
    if isinstance(node, list):
        for item in node:
            yield from _nxos_entries(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "ROW_qosgrp_stats_entry":
                yield from _rows(value)
            else:
                yield from _nxos_entries(value)


def _nxos(data):
    total = 0
    for entry in _nxos_entries(data):
        for key, value in entry.items():
            if key != "q-stat-type":
                total += _number(value) or 0
    return total


def aifab_pfcwd_events(data, os):
    """Watchdog events counted in `data`, the parsed JSON of `os`'s watchdog show command."""
    if not isinstance(data, dict):
        raise ValueError("expected the parsed `| json` output, got %s" % type(data).__name__)
    if os == "eos":
        return _eos(data)
    if os == "nxos":
        return _nxos(data)
    raise ValueError("no watchdog counters known for %r" % (os,))


class FilterModule(object):
    """Ansible's entry point for the filters of this file."""

    def filters(self):
        return {"aifab_pfcwd_events": aifab_pfcwd_events}
