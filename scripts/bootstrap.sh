# Sourced by start.sh and test.sh: makes a bare machine (Node 20 + npm) ready to run rtcscope.
# Installs pnpm locally under .tools/ when the machine has no pnpm 12, then the workspace's
# dependencies, then generates the Prisma client (offline, see apps/server/scripts/generate-prisma.mjs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "rtcscope needs Node.js 20 or newer; this machine has $(node --version)." >&2
  exit 1
fi

PNPM_VERSION=12.21.0
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" != "12" ]; then
  if [ ! -x .tools/node_modules/.bin/pnpm ]; then
    echo "• installing pnpm $PNPM_VERSION into .tools/"
    npm install --prefix .tools "pnpm@$PNPM_VERSION" --no-audit --no-fund --loglevel=error >/dev/null
  fi
  export PATH="$root/.tools/node_modules/.bin:$PATH"
fi

echo "• installing dependencies"
pnpm install --frozen-lockfile --reporter=silent
echo "• generating the Prisma client"
pnpm --filter @rtcscope/server run --silent generate >/dev/null

build_clients() {
  echo "• building the SDK and the dashboard"
  pnpm --filter @rtcscope/sdk run --silent build
  pnpm --filter @rtcscope/web exec vite build --logLevel warn
}
