#!/usr/bin/env bash
# Runs every check: lint, type-check, unit and integration tests (real PostgreSQL), and end-to-end tests
# in real Chromium. Installs what is missing first (pnpm, dependencies, Debian's chromium).
source "$(dirname "$0")/bootstrap.sh"

if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "• installing chromium from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "The end-to-end tests need Chromium: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH)." >&2
    exit 1
  fi
fi

results="$root/test-results"
rm -rf "$results"
mkdir -p "$results"

echo "• lint"
pnpm exec eslint .
echo "• type-check"
pnpm exec tsc -p tsconfig.json

echo "• unit and integration tests"
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile="$results/vitest.json" || status=$?

build_clients
echo "• end-to-end tests"
(cd e2e && PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" pnpm exec playwright test --reporter=list,json) || status=$?

node scripts/summarize-tests.mjs "$results/vitest.json" "$results/e2e.json" || status=1
exit $status
