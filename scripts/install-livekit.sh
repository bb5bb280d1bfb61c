#!/usr/bin/env bash
# Builds the LiveKit server the lab runs calls through into .tools/livekit-<version>/, once: `npm test`
# calls it, `npm start` and the lab use what it built (LIVEKIT_PATH for another binary). From LiveKit's Go
# module with the machine's Go (1.22 or newer); without one, Debian's golang-go fetches a newer toolchain
# from the Go module proxy (the golang.org/toolchain module), never from a download site. Newer releases
# than this cannot be built here: they replace pion with forks the module proxy refuses. Prints the path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIVEKIT_VERSION="$(node -p "require('$root/package.json').tools['livekit-server']")"
GO_TOOLCHAIN=go1.23.12
dir="$root/.tools/livekit-$LIVEKIT_VERSION"
bin="$dir/livekit-server"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

# The go command to build with: go1.X.Y is new enough from 1.22 on.
new_enough() { "$1" env GOVERSION 2>/dev/null | awk -F'[.o]' '{ exit !($3 > 1 || ($3 == 1 && $4 >= 22)) }'; }
go=""
if command -v go >/dev/null && new_enough go; then
  go=go
elif [ -x "$root/.tools/go/bin/go" ]; then
  go="$root/.tools/go/bin/go"
else
  if ! command -v go >/dev/null; then
    if [ "$(id -u)" != 0 ]; then
      echo "building LiveKit needs Go 1.22 or newer: install it, or run 'sudo apt-get install -y golang-go' and this again" >&2
      exit 1
    fi
    echo "• installing golang-go from Debian's packages (it fetches a newer Go to build LiveKit with)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  fi
  echo "• fetching $GO_TOOLCHAIN from the Go module proxy into .tools/go" >&2
  arch="$(go env GOARCH)"
  module="$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "golang.org/toolchain@v0.0.1-$GO_TOOLCHAIN.linux-$arch" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
  rm -rf "$root/.tools/go"
  # The module cache keeps no file modes, and its copy is read-only: the toolchain runs from a copy.
  cp -r "$module" "$root/.tools/go"
  chmod -R u+w "$root/.tools/go"
  chmod +x "$root/.tools/go/bin/"* "$root/.tools/go/pkg/tool/"*/*
  go="$root/.tools/go/bin/go"
fi

echo "• building livekit-server $LIVEKIT_VERSION into .tools/ (about 4 minutes on 2 cores, once)" >&2
tmp="$dir.partial"
rm -rf "$tmp"
mkdir -p "$tmp"
GOTOOLCHAIN=local GOBIN="$tmp" "$go" install "github.com/livekit/livekit-server/cmd/server@v$LIVEKIT_VERSION" >&2
mv "$tmp/server" "$tmp/livekit-server"
rm -rf "$dir"
mv "$tmp" "$dir"
echo "$bin"
