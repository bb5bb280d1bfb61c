#!/usr/bin/env bash
# Runs rtcscope: server + dashboard on one URL, on an embedded PostgreSQL unless DATABASE_URL is set,
# with a lab agent beside it where Chromium is installed, so campaigns run from the dashboard.
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
exec node --import tsx apps/server/src/main.ts
