#!/usr/bin/env bash
# Runs every check: lint, type-check, unit and integration tests (real PostgreSQL), and end-to-end tests
# in real Chromium and Firefox. Installs what is missing first (pnpm, dependencies, Debian's chromium,
# firefox-esr, pulseaudio, janus and nginx; LiveKit, built from its Go module).
# Each phase's time, printed at the end (the whole must stay within CI's budget: docs/testing.md).
phases=()
mark=$SECONDS
phase_done() {
  phases+=("$1 $(( (SECONDS - mark) / 60 )) min $(( (SECONDS - mark) % 60 )) s")
  mark=$SECONDS
}
source "$(dirname "$0")/bootstrap.sh"

# Debian packages the tests drive: Chromium and Firefox ESR (end-to-end calls), PulseAudio (the sound
# server the lab gives Firefox, which starts Web Audio only with an audio device), Janus (the SFU of the lab's
# calls through one), coturn (the TURN server handed-out credentials are tried on), nginx (the load
# balancer in front of the 3-node integration test) and Python's venv (for the REST API's fuzzer, below).
missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
[ -x "${FIREFOX_PATH:-/usr/bin/firefox-esr}" ] || missing+=(firefox-esr)
command -v "${PULSEAUDIO_PATH:-pulseaudio}" >/dev/null || missing+=(pulseaudio)
[ -x "${JANUS_PATH:-/usr/bin/janus}" ] || missing+=(janus)
[ -x "${TURNSERVER_PATH:-/usr/bin/turnserver}" ] || missing+=(coturn)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "• installing ${missing[*]} from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    # The packages enable Janus and coturn services on their default ports; the tests start their own instances.
    if [[ " ${missing[*]} " == *" janus "* ]] && command -v systemctl >/dev/null; then systemctl disable --now janus >/dev/null 2>&1 || true; fi
    if [[ " ${missing[*]} " == *" coturn "* ]] && command -v systemctl >/dev/null; then systemctl disable --now coturn >/dev/null 2>&1 || true; fi
  else
    echo "The tests need ${missing[*]}: run 'sudo apt-get install -y ${missing[*]}' (or set CHROMIUM_PATH, FIREFOX_PATH, PULSEAUDIO_PATH, JANUS_PATH, TURNSERVER_PATH)." >&2
    exit 1
  fi
fi

# schemathesis (from PyPI), which fuzzes the REST API from its OpenAPI document, in a virtual
# environment of the project's own.
SCHEMATHESIS_VERSION=4.32.5
if ! .tools/venv/bin/schemathesis --version 2>/dev/null | grep -qF "$SCHEMATHESIS_VERSION"; then
  echo "• installing schemathesis $SCHEMATHESIS_VERSION into .tools/venv"
  rm -rf .tools/venv
  python3 -m venv .tools/venv
  .tools/venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# LiveKit, the lab's second SFU: built once from its Go module into .tools/ (about 4 minutes on 2 cores).
bash scripts/install-livekit.sh >/dev/null

phase_done "install"
results="$root/test-results"
rm -rf "$results"
mkdir -p "$results"

echo "• lint"
pnpm exec prettier --check --log-level warn .
pnpm exec eslint .
phase_done "lint"
echo "• type-check"
pnpm exec tsc -p tsconfig.json
phase_done "type-check"

echo "• unit and integration tests"
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile="$results/vitest.json" || status=$?
phase_done "unit and integration"

build_clients
phase_done "build"
echo "• end-to-end tests"
(cd e2e && PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" pnpm exec playwright test --reporter=list,json) || status=$?
phase_done "end-to-end"

node scripts/summarize-tests.mjs "$results/vitest.json" "$results/e2e.json" || status=1
printf -v joined '%s; ' "${phases[@]}"
echo "time: ${joined}total $((SECONDS / 60)) min $((SECONDS % 60)) s"
exit $status
