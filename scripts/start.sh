#!/usr/bin/env bash
# Runs rtcscope: server + dashboard on one URL, on an embedded PostgreSQL unless DATABASE_URL is set,
# with a lab agent beside it where Chromium is installed, so campaigns run from the dashboard, and a TURN
# server where coturn is.
source "$(dirname "$0")/bootstrap.sh"
build_clients
if [[ -z "${LOCAL_LAB_AGENT:-}" ]]; then
  if [[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]]; then
    export LOCAL_LAB_AGENT=on
  else
    echo "No Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}: the local lab agent stays off (install Debian's chromium package, then start again)." >&2
    export LOCAL_LAB_AGENT=off
  fi
fi
if [[ -z "${LOCAL_TURN:-}" ]]; then
  if [[ -x "${TURNSERVER_PATH:-/usr/bin/turnserver}" ]]; then
    export LOCAL_TURN=on
  else
    echo "No coturn at ${TURNSERVER_PATH:-/usr/bin/turnserver}: no local TURN server for pre-call tests (install Debian's coturn package, then start again)." >&2
    export LOCAL_TURN=off
  fi
fi
# On one's own machine a webhook receiver beside the server is the usual first one (deployments deny it).
export WEBHOOK_PRIVATE_ADDRESSES="${WEBHOOK_PRIVATE_ADDRESSES:-allow}"
# The person at this terminal sees the banner, warnings and errors; LOG_LEVEL=info or debug shows more.
export LOG_LEVEL="${LOG_LEVEL:-warn}"
# A young generation of 64 MB instead of 16: ingest allocates ~200 MB/s of short-lived objects, and the
# scavenges took 80 ms of every second; with this, 45, and 53,820 samples/s passed where 48,000 did (docs/sizing.md).
#
# The server runs in a session of its own, so a Ctrl-C in this terminal reaches only this script, which
# passes it on: the server then stops its lab agent, itself and its PostgreSQL in that order, instead of
# all of them being interrupted at once (the database dying under a server still using it).
setsid node --max-semi-space-size=64 --import tsx apps/server/src/main.ts &
server=$!
trap 'kill -INT "$server" 2>/dev/null' INT TERM
# `wait` returns early when a signal arrives; wait again until the server has stopped.
while kill -0 "$server" 2>/dev/null; do wait "$server"; done
wait "$server"
