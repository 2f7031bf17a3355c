#!/usr/bin/env bash
# A real Nautobot on 127.0.0.1 for tests/it/dcim.rs (docs/dcim.md), idempotent: each step is skipped
# when it is already done, so re-running it costs a few seconds once the server is up.
#
#   Debian's postgresql and redis-server, started here (no init system is assumed);
#   Nautobot from PyPI, pinned, in its own virtualenv .ci/nautobot-venv (Nautobot pins netaddr 1.x and
#   Django 4.2, which the SONiC start-up tests' netaddr==0.8.0 in .ci/venv cannot share);
#   its configuration under .ci/nautobot (NAUTOBOT_ROOT), migrated (about 4 minutes on 2 cores the
#   first time), a superuser `aifab` and an API token;
#   `nautobot-server start` (uWSGI) on 127.0.0.1:$AIFAB_NAUTOBOT_PORT (default 8088), its log in
#   .ci/nautobot/server.log and its process id in .ci/nautobot/server.pid.
#
# The tests find it through .ci/nautobot.env (AIFAB_NAUTOBOT_URL, AIFAB_NAUTOBOT_TOKEN), written last,
# only once the API answers. The token is local to this throw-away server; the file is git-ignored.
set -euo pipefail
cd "$(dirname "$0")/.."

NAUTOBOT_PIN="nautobot==2.4.44"
PORT="${AIFAB_NAUTOBOT_PORT:-8088}"
VENV=".ci/nautobot-venv"
export NAUTOBOT_ROOT="$PWD/.ci/nautobot"
ENV_FILE=".ci/nautobot.env"

need_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { need_root runuser -u postgres -- "$@"; }
apt_install() {
  need_root apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 \
    || { need_root apt-get update >/dev/null && need_root apt-get install -y --no-install-recommends "$@" >/dev/null; }
}

if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! command -v redis-server >/dev/null 2>&1; then
  echo "nautobot: installing postgresql and redis-server"
  apt_install postgresql redis-server
fi

# PostgreSQL: Debian's first cluster, started if it is down.
cluster="$(pg_lsclusters --no-header | awk 'NR==1 {print $1" "$2}')"
if [ -z "$cluster" ]; then
  ver="$(ls /usr/lib/postgresql | sort -n | tail -1)"
  need_root pg_createcluster "$ver" main >/dev/null
  cluster="$ver main"
fi
if ! pg_lsclusters --no-header | awk 'NR==1 {print $4}' | grep -q online; then
  echo "nautobot: starting postgresql $cluster"
  # shellcheck disable=SC2086
  need_root pg_ctlcluster $cluster start
fi
export NAUTOBOT_DB_NAME=nautobot NAUTOBOT_DB_USER=nautobot NAUTOBOT_DB_PASSWORD=aifab-ci-only
export NAUTOBOT_DB_HOST=127.0.0.1 NAUTOBOT_DB_PORT=5432
if [ "$(as_postgres psql -tAc "SELECT 1 FROM pg_roles WHERE rolname='nautobot'")" != 1 ]; then
  as_postgres psql -qc "CREATE USER nautobot WITH PASSWORD '$NAUTOBOT_DB_PASSWORD'"
fi
if [ "$(as_postgres psql -tAc "SELECT 1 FROM pg_database WHERE datname='nautobot'")" != 1 ]; then
  as_postgres psql -qc "CREATE DATABASE nautobot OWNER nautobot"
fi

# Redis: Nautobot's cache and Celery broker.
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "nautobot: starting redis-server"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 50); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
export NAUTOBOT_REDIS_HOST=127.0.0.1 NAUTOBOT_REDIS_PORT=6379

# Nautobot itself.
if [ ! -x "$VENV/bin/python" ]; then
  echo "nautobot: creating $VENV"
  python3 -m venv "$VENV" 2>/dev/null || { rm -rf "$VENV"; apt_install python3-venv; python3 -m venv "$VENV"; }
fi
if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("nautobot"))' 2>/dev/null)" != "${NAUTOBOT_PIN#*==}" ]; then
  echo "nautobot: installing $NAUTOBOT_PIN into $VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$NAUTOBOT_PIN"
fi
server="$VENV/bin/nautobot-server"
mkdir -p "$NAUTOBOT_ROOT"
if [ ! -f "$NAUTOBOT_ROOT/nautobot_config.py" ]; then
  "$server" init --disable-installation-metrics "$NAUTOBOT_ROOT/nautobot_config.py" >/dev/null 2>&1 \
    || "$server" init "$NAUTOBOT_ROOT/nautobot_config.py" </dev/null >/dev/null
fi
export NAUTOBOT_ALLOWED_HOSTS="127.0.0.1 localhost" NAUTOBOT_INSTALLATION_METRICS_ENABLED=False
if [ ! -f "$NAUTOBOT_ROOT/secret_key" ]; then
  "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(50))' >"$NAUTOBOT_ROOT/secret_key"
fi
NAUTOBOT_SECRET_KEY="$(cat "$NAUTOBOT_ROOT/secret_key")"
export NAUTOBOT_SECRET_KEY

if "$server" showmigrations --plan 2>/dev/null | grep -q '^\[ \]'; then
  echo "nautobot: migrating the database (about 4 minutes the first time)"
  "$server" migrate --no-input >"$NAUTOBOT_ROOT/migrate.log" 2>&1 || { tail -n 40 "$NAUTOBOT_ROOT/migrate.log"; exit 1; }
fi

# The superuser and its API token (nbshell runs the Django shell with Nautobot's models loaded).
if [ ! -f "$NAUTOBOT_ROOT/token" ]; then
  "$VENV/bin/python" -c 'import secrets; print(secrets.token_hex(20))' >"$NAUTOBOT_ROOT/token"
fi
TOKEN="$(cat "$NAUTOBOT_ROOT/token")"
AIFAB_CI_TOKEN="$TOKEN" "$server" nbshell >/dev/null 2>&1 <<'EOF' || { echo "nautobot: could not create the API user"; exit 1; }
import os
from django.contrib.auth import get_user_model
from nautobot.users.models import Token
user, _ = get_user_model().objects.get_or_create(username="aifab", defaults={"is_superuser": True, "is_staff": True})
user.is_superuser = True
user.is_staff = True
user.save()
Token.objects.get_or_create(user=user, key=os.environ["AIFAB_CI_TOKEN"], defaults={"write_enabled": True})
EOF

url="http://127.0.0.1:$PORT"
api_up() { curl -sf -m 5 -H "Authorization: Token $TOKEN" "$url/api/status/" >/dev/null 2>&1; }
if ! api_up; then
  echo "nautobot: starting the server on $url"
  # uWSGI (Nautobot's own `start`), one worker process per core: the tests sync several fabrics at
  # once and aifab sends a kind's batches two at a time.
  nohup "$server" start --http="127.0.0.1:$PORT" --processes="${AIFAB_NAUTOBOT_PROCESSES:-2}" --master \
    --die-on-term --disable-logging --http-timeout=900 --buffer-size=32768 >"$NAUTOBOT_ROOT/server.log" 2>&1 &
  echo $! >"$NAUTOBOT_ROOT/server.pid"
  for _ in $(seq 120); do api_up && break; sleep 1; done
  api_up || { tail -n 40 "$NAUTOBOT_ROOT/server.log"; echo "nautobot: the server did not answer on $url"; exit 1; }
fi
printf 'AIFAB_NAUTOBOT_URL=%s\nAIFAB_NAUTOBOT_TOKEN=%s\n' "$url" "$TOKEN" >"$ENV_FILE.tmp"
mv "$ENV_FILE.tmp" "$ENV_FILE"
echo "nautobot: $(curl -sf -m 5 -H "Authorization: Token $TOKEN" "$url/api/status/" | sed -n 's/.*"nautobot-version": *"\([^"]*\)".*/\1/p') up on $url"
