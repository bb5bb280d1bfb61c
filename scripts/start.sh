#!/usr/bin/env bash
# Runs rtcscope: server + dashboard on one URL, on an embedded PostgreSQL unless DATABASE_URL is set.
source "$(dirname "$0")/bootstrap.sh"
build_clients
exec node --import tsx apps/server/src/main.ts
