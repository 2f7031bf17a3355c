#!/bin/sh
# The 100K benchmark intent with a lock that pins two spines of different zones to other zones'
# ASNs (z1-s01 to zone 2's 65001, z3-s05 to zone 4's 65003; their loopbacks and router-ids are the
# ones aifab allocates), then `aifab validate` of it timed: the routing proof of a plan off the
# proof's shape at 100K (docs/twin.md#why-the-proof-holds). validate refuses the plan (exit 1).
# Usage: tests/bench/two-pins-100k.sh [aifab binary] [folder]   (defaults: target/release/aifab, a temp folder)
set -eu
aifab=${1:-target/release/aifab}
dir=${2:-$(mktemp -d)}
"$aifab" bench --print-intent 100k > "$dir/fab.yaml"
cat > "$dir/fab.lock.yaml" <<'LOCK'
# aifab allocation lock for fab.yaml: what render allocated to whom.
# Commit it with the intent; see docs/lock.md (pin by editing, release with --release).
version: 1
devices:
  - {name: z1-s01, loopback: 10.0.15.126, router_id: 10.0.15.126, asn: 65001}
  - {name: z3-s05, loopback: 10.0.14.250, router_id: 10.0.14.250, asn: 65003}
links: []
servers: []
LOCK
echo "$dir/fab.yaml with $dir/fab.lock.yaml"
for i in 1 2 3; do
  /usr/bin/time -f "validate: %e s wall, %U s user, %M KB peak" "$aifab" validate -q "$dir/fab.yaml" 2>&1 \
    | grep -E "^validate:|AIF-ROUTE" || true
done
