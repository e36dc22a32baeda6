#!/usr/bin/env bash
# Try propertyd without the internet: build the upstream sandbox and
# propertyd, start both (propertyd configured by cmd/sandbox/demo.yaml, on a
# fresh database in a temporary folder), wait until both are ready, print
# curl commands that work against them, and stop both on Ctrl-C.
#
# Usage: bash cmd/sandbox/demo.sh   (or: make demo)
# Environment: SANDBOX_LISTEN (default 127.0.0.1:9090), PROPERTYD_LISTEN
# (default 127.0.0.1:8080).
set -euo pipefail
cd "$(dirname "$0")/../.."

sandbox_listen=${SANDBOX_LISTEN:-127.0.0.1:9090}
listen=${PROPERTYD_LISTEN:-127.0.0.1:8080}
command -v curl >/dev/null || { echo "demo: curl is required" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/propertyd-demo.XXXXXX")
pids=()
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap stop EXIT
trap 'echo; echo "demo: stopping"; exit 0' INT TERM

echo "demo: building the sandbox and propertyd"
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
      echo "demo: $2 exited; its log:" >&2
      cat "$tmp/$2.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "demo: $2 did not become ready at $1; its log:" >&2
  cat "$tmp/$2.log" >&2
  exit 1
}

"$tmp/sandbox" -listen "$sandbox_listen" >"$tmp/sandbox.log" 2>&1 &
pids+=($!)
wait_ok "http://$sandbox_listen/_sandbox/" sandbox "${pids[-1]}"

# Facts for the sample places: a small assessor file, loaded before serving.
SANDBOX_URL="http://$sandbox_listen" PROPERTYD_DATABASE="$tmp/demo.db" \
  "$tmp/propertyd" data load parcels -config cmd/sandbox/demo.yaml -dataset sample-assessor \
  -failures "$tmp/sample-assessor.failures.csv" cmd/sandbox/assessor.csv >"$tmp/load.log" 2>&1 ||
  { echo "demo: loading cmd/sandbox/assessor.csv failed:" >&2; cat "$tmp/load.log" >&2; exit 1; }

SANDBOX_URL="http://$sandbox_listen" PROPERTYD_LISTEN="$listen" PROPERTYD_DATABASE="$tmp/demo.db" \
  "$tmp/propertyd" -config cmd/sandbox/demo.yaml >"$tmp/propertyd.log" 2>&1 &
pids+=($!)
wait_ok "http://$listen/readyz" propertyd "${pids[-1]}"

cat <<EOF

propertyd is serving on http://$listen against the upstream sandbox on http://$sandbox_listen
(sample places: providers/kits/providertest/sandbox/places.json; database: $tmp/demo.db, removed on exit).
Logs: $tmp/propertyd.log and $tmp/sandbox.log. Press Ctrl-C to stop both.

Try, in order (the first lookup creates record 1, with the facts of
cmd/sandbox/assessor.csv, loaded before serving: bedrooms, year_built, facts.source):

K='X-API-Key: propertyd-demo-key'; B=http://$listen

curl -H "\$K" "\$B/v1/properties/lookup?street=1100+Congress+Avenue&city=Austin&state=TX&zip=78701"
curl -H "\$K" "\$B/v1/properties/lookup?street=1100+Congress+Ave&state=TX&include=flood,demographics,amenities,walkscore,housing"
curl -H "\$K" "\$B/v1/properties/1?include=walkscore"
curl -H "\$K" "\$B/v1/properties/1/flood"
curl -H "\$K" "\$B/v1/properties/1/demographics"
curl -H "\$K" "\$B/v1/properties/1/amenities?radius=1500"
curl -H "\$K" "\$B/v1/properties/reverse?lat=39.7395&lng=-104.9902"
curl -H "\$K" -H 'Content-Type: application/json' -X POST "\$B/v1/properties/batch?include=flood" \\
  -d '{"addresses":[{"id":"a1","street":"915 I Street","city":"Sacramento","state":"CA"},{"id":"a2","street":"1300 Perdido St","city":"New Orleans","state":"LA","zip":"70112"}]}'
curl -H "\$K" "\$B/v1/properties/search?state=TX&page=1&per_page=25"
curl "\$B/healthz"; curl "\$B/readyz"
PROPERTYD_DATABASE=$tmp/demo.db $tmp/propertyd data status -config cmd/sandbox/demo.yaml

# The sandbox's knobs: make the geocoder slow, then reset; count upstream calls.
curl -X POST "http://$sandbox_listen/_sandbox/faults" -d '{"upstream":"census","latency":"500ms"}'
curl -X DELETE "http://$sandbox_listen/_sandbox/faults"
curl "http://$sandbox_listen/_sandbox/stats"
EOF

# Sleep until a signal, or until either process exits on its own.
while kill -0 "${pids[0]}" 2>/dev/null && kill -0 "${pids[1]}" 2>/dev/null; do
  sleep 1
done
echo "demo: a process exited; logs:" >&2
tail -n 20 "$tmp/sandbox.log" "$tmp/propertyd.log" >&2
exit 1
