#!/usr/bin/env bash
# Try a fleet without the internet: the upstream sandbox and three propertyd
# instances (configured by cmd/sandbox/demo.yaml) on one local PostgreSQL
# database and one local Redis, on ports 8081-8083. Loads the sample
# assessor file's facts as make demo does, waits until all are ready,
# prints curl commands that show the instances sharing records, budgets and
# upstream calls, and stops everything on Ctrl-C, dropping the schema it
# used.
#
# Usage: bash cmd/sandbox/fleet.sh   (or: make fleet)
# Environment, each with the demo's default, so that a fleet can run beside
# another user of the same PostgreSQL and Redis:
#   FLEET_POSTGRES  postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
#                   (the user must be able to create a schema)
#   FLEET_SCHEMA    propertyd_fleet: the schema made, and dropped on exit
#   FLEET_PORTS     "8081 8082 8083": one instance a port
#   FLEET_REDIS_DB  0: the Redis database the instances share
#   FLEET_REDIS     redis://127.0.0.1:6379/$FLEET_REDIS_DB
#   SANDBOX_LISTEN  127.0.0.1:9090
set -euo pipefail
cd "$(dirname "$0")/../.."

pg=${FLEET_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
redis=${FLEET_REDIS:-redis://127.0.0.1:6379/${FLEET_REDIS_DB:-0}}
sandbox_listen=${SANDBOX_LISTEN:-127.0.0.1:9090}
read -r -a ports <<<"${FLEET_PORTS:-8081 8082 8083}"
schema=${FLEET_SCHEMA:-propertyd_fleet}

need() { echo "fleet: $1" >&2; exit 1; }
[[ $schema =~ ^[a-z_][a-z0-9_]*$ ]] || need "FLEET_SCHEMA=$schema: a schema name is lower-case letters, digits and _"
((${#ports[@]} > 0)) || need "FLEET_PORTS is empty: give one port an instance, such as \"8081 8082 8083\""
for port in "${ports[@]}"; do
  [[ $port =~ ^[0-9]+$ ]] || need "FLEET_PORTS=${ports[*]}: $port is no port"
done
command -v curl >/dev/null || need "curl is required"
command -v psql >/dev/null ||
  need "psql is required (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq)"

# host_port URL DEFAULT_PORT: the host:port of a postgres:// or redis:// URL.
host_port() {
  local rest=${1#*://}
  rest=${rest##*@}
  rest=${rest%%[/?]*}
  case $rest in
    *:*) echo "$rest" ;;
    *) echo "${rest:-127.0.0.1}:$2" ;;
  esac
}
# answers HOST:PORT: whether something listens there.
answers() { (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null; }

if ! answers "$(host_port "$pg" 5432)"; then
  need "no PostgreSQL answers at $(host_port "$pg" 5432).
  Install and start one (Debian/Ubuntu: apt-get install postgresql && service postgresql start;
  macOS: brew install postgresql && brew services start postgresql),
  or point FLEET_POSTGRES at one: FLEET_POSTGRES=postgres://user:pass@host:5432/db make fleet"
fi
if ! answers "$(host_port "$redis" 6379)"; then
  need "no Redis answers at $(host_port "$redis" 6379).
  Install and start one (Debian/Ubuntu: apt-get install redis-server && service redis-server start;
  macOS: brew install redis && brew services start redis),
  or point FLEET_REDIS at one: FLEET_REDIS=redis://host:6379/0 make fleet"
fi

case $pg in
  *\?*) database="$pg&search_path=$schema" ;;
  *) database="$pg?search_path=$schema" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/propertyd-fleet.XXXXXX")
pids=()
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  psql -q "$pg" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap stop EXIT
trap 'echo; echo "fleet: stopping"; exit 0' INT TERM

# A fresh schema each run, so the first lookup creates record 1.
PGOPTIONS='-c client_min_messages=warning' psql -q "$pg" -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema" >/dev/null ||
  need "could not create the schema $schema at FLEET_POSTGRES; its user must be allowed to"

echo "fleet: building the sandbox and propertyd"
go build -o "$tmp/sandbox" ./cmd/sandbox
go build -o "$tmp/propertyd" ./cmd/propertyd

# wait_ok URL NAME PID: poll URL until it answers 200, for at most 30 seconds,
# giving up early when the process PID has exited.
wait_ok() {
  for _ in $(seq 300); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$3" 2>/dev/null; then
      echo "fleet: $2 exited; its log:" >&2
      cat "$tmp/$2.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "fleet: $2 did not become ready at $1; its log:" >&2
  cat "$tmp/$2.log" >&2
  exit 1
}

"$tmp/sandbox" -listen "$sandbox_listen" >"$tmp/sandbox.log" 2>&1 &
pids+=($!)
wait_ok "http://$sandbox_listen/_sandbox/" sandbox "${pids[-1]}"

# Facts for the sample places, as make demo loads them: the load applies
# the migrations to the new schema before any instance starts.
SANDBOX_URL="http://$sandbox_listen" PROPERTYD_DATABASE="$database" PROPERTYD_REDIS_URL="$redis" \
  "$tmp/propertyd" data load parcels -config cmd/sandbox/demo.yaml -dataset sample-assessor \
  -failures "$tmp/sample-assessor.failures.csv" cmd/sandbox/assessor.csv >"$tmp/load.log" 2>&1 ||
  { echo "fleet: loading cmd/sandbox/assessor.csv failed:" >&2; cat "$tmp/load.log" >&2; exit 1; }

# The instances start one after another, each once the one before is ready.
for port in "${ports[@]}"; do
  SANDBOX_URL="http://$sandbox_listen" PROPERTYD_LISTEN="127.0.0.1:$port" PROPERTYD_DATABASE="$database" \
    PROPERTYD_REDIS_URL="$redis" "$tmp/propertyd" -config cmd/sandbox/demo.yaml >"$tmp/propertyd-$port.log" 2>&1 &
  pids+=($!)
  wait_ok "http://127.0.0.1:$port/readyz" "propertyd-$port" "${pids[-1]}"
done

p1=${ports[0]} p2=${ports[1 % ${#ports[@]}]} p3=${ports[2 % ${#ports[@]}]}
cat <<EOF

${#ports[@]} propertyd instances are serving on ports ${ports[*]} of 127.0.0.1, sharing the
PostgreSQL schema $schema (dropped on exit) and the Redis at $redis,
against the upstream sandbox on http://$sandbox_listen (sample places: providers/kits/providertest/sandbox/places.json),
with the facts of cmd/sandbox/assessor.csv loaded.
Logs: $tmp/propertyd-<port>.log and $tmp/sandbox.log. Press Ctrl-C to stop them all.

Try, in order:

K='X-API-Key: propertyd-demo-key'; L='/v1/properties/lookup?street=1100+Congress+Avenue&city=Austin&state=TX&include=flood'

# One address looked up on all three at once: one geocoder call (and one per flood query)
# between them, one id.
for p in $p1 $p2 $p3 $p1 $p2 $p3; do curl -s -H "\$K" "http://127.0.0.1:\$p\$L" & done; wait; echo
curl "http://$sandbox_listen/_sandbox/stats"

# Created on one, served by the others with no upstream call (the stats do not move).
curl -H "\$K" "http://127.0.0.1:$p2/v1/properties/1"
curl -H "\$K" "http://127.0.0.1:$p3\$L"
curl -H "\$K" "http://127.0.0.1:$p3/v1/properties/1/flood"
curl "http://$sandbox_listen/_sandbox/stats"

# One budget for the demo key across the fleet: X-RateLimit-Remaining falls on every instance.
for p in $p1 $p2 $p3; do curl -s -o /dev/null -D - -H "\$K" "http://127.0.0.1:\$p/v1/properties/search?state=TX" | grep -i ratelimit-remaining; done

# Readiness shows whether Redis answers.
curl "http://127.0.0.1:$p1/readyz"
EOF

# Sleep until a signal, or until any process exits on its own.
while :; do
  for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "fleet: a process exited; logs:" >&2
      tail -n 20 "$tmp"/*.log >&2
      exit 1
    fi
  done
  sleep 1
done
