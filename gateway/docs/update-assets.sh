#!/usr/bin/env bash
# Re-fetches the Swagger UI files that /docs serves from the npm registry.
# Usage: gateway/docs/update-assets.sh [VERSION]   (default: the version below)
# Afterwards update the version in assets/README.md, then run
# `go test ./gateway/docs/ ./cmd/propertyd/ -run 'Docs|OpenAPI'`.
set -euo pipefail

version="${1:-5.35.0}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "swagger-ui-dist@${version}" >/dev/null)
tar -xzf "$tmp"/swagger-ui-dist-*.tgz -C "$tmp"

# Only the prebuilt bundle (it includes the API preset, so the standalone
# preset is not needed), its style sheet and the licence texts. Source maps
# are left out.
for f in swagger-ui-bundle.js swagger-ui.css; do
  cp "$tmp/package/$f" "$here/assets/$f"
done
cp "$tmp/package/LICENSE" "$here/assets/LICENSE"
cp "$tmp/package/swagger-ui-bundle.js.LICENSE.txt" "$here/assets/swagger-ui-bundle.js.LICENSE.txt"

echo "swagger-ui-dist ${version}: $(du -ch "$here"/assets/swagger-ui-bundle.js "$here"/assets/swagger-ui.css | tail -1)"
