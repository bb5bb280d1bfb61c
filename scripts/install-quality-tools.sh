#!/usr/bin/env bash
# Installs what `pnpm bench:quality` measures received media with, into .tools/quality/: an ffmpeg built
# with libvmaf (Debian's ffmpeg has none, and Debian has no libvmaf), taken from PyPI's imageio-ffmpeg
# wheel, a static build whose libvmaf carries the vmaf_v0.6.1 model. Prints the ffmpeg's path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.tools/quality"
IMAGEIO_FFMPEG_VERSION=0.8.1
ffmpeg="$dir/ffmpeg-$IMAGEIO_FFMPEG_VERSION"

if [ ! -x "$ffmpeg" ]; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    if [ "$(id -u)" != 0 ]; then
      echo "bench:quality needs Python's venv to fetch its ffmpeg: run 'sudo apt-get install -y python3-venv'" >&2
      exit 1
    fi
    echo "• installing python3-venv from Debian's packages" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  echo "• fetching ffmpeg with libvmaf (imageio-ffmpeg $IMAGEIO_FFMPEG_VERSION) into .tools/quality" >&2
  rm -rf "$dir"
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 "imageio-ffmpeg==$IMAGEIO_FFMPEG_VERSION" -d "$dir/wheels"
  "$dir/venv/bin/python" - "$dir/wheels" "$ffmpeg" <<'PY'
import sys, zipfile, pathlib, os
wheels, target = pathlib.Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(next(wheels.glob('imageio_ffmpeg-*.whl'))) as z:
    member = next(n for n in z.namelist() if '/binaries/ffmpeg-linux' in n)
    with z.open(member) as src, open(target, 'wb') as out:
        out.write(src.read())
os.chmod(target, 0o755)
PY
  rm -rf "$dir/wheels"
fi
# Read whole first: grep -q ending the pipe early would fail it under pipefail.
filters="$("$ffmpeg" -hide_banner -filters 2>/dev/null || true)"
if ! grep -qE '[[:space:]]libvmaf[[:space:]]' <<<"$filters"; then
  echo "the ffmpeg at $ffmpeg has no libvmaf filter" >&2
  exit 1
fi
echo "$ffmpeg"
