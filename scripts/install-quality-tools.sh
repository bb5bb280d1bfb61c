#!/usr/bin/env bash
# Installs what `pnpm bench:quality` makes and measures media with: into .tools/quality/, an ffmpeg built
# with libvmaf (Debian's ffmpeg has none, and Debian has no libvmaf), taken from PyPI's imageio-ffmpeg
# wheel, a static build whose libvmaf carries the vmaf_v0.6.1 model, and a Python with the pesq package
# (ITU-T P.862's reference code, built here: it needs a C compiler and Python's headers) and visqol-python
# (ViSQOL v3, a port of Google's tool that matches its conformance tests, with the TFLite runtime its
# speech mode's default mapping needs, and numba, which made a 5-s window 6 times faster here: 0.38 s); from Debian's packages, espeak-ng for the speech sent and
# PulseAudio, the sound server Firefox plays received audio into. Prints the ffmpeg's path, then the Python's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/.tools/quality"
IMAGEIO_FFMPEG_VERSION=0.8.1
PESQ_VERSION=0.0.4
NUMPY_VERSION=2.2.6
VISQOL_VERSION=3.8.0
ffmpeg="$dir/ffmpeg-$IMAGEIO_FFMPEG_VERSION"
python="$dir/venv/bin/python"

# Debian packages the tools need and this machine lacks: installed when root, else said.
missing=()
command -v espeak-ng >/dev/null || missing+=(espeak-ng)
command -v pulseaudio >/dev/null || missing+=(pulseaudio)
command -v pactl >/dev/null || missing+=(pulseaudio-utils)
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
command -v cc >/dev/null || missing+=(build-essential)
[ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ] || missing+=(python3-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "bench:quality needs ${missing[*]}: run 'sudo apt-get install -y ${missing[*]}'" >&2
    exit 1
  fi
  echo "• installing ${missing[*]} from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x "$ffmpeg" ]; then
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
if ! "$python" -c 'import numpy, pesq, visqol, ai_edge_litert, numba' 2>/dev/null; then
  echo "• building PESQ (pesq $PESQ_VERSION) and installing ViSQOL (visqol-python $VISQOL_VERSION) into .tools/quality" >&2
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "numpy==$NUMPY_VERSION" "pesq==$PESQ_VERSION" \
    "visqol-python[lattice,accel]==$VISQOL_VERSION"
fi
# Read whole first: grep -q ending the pipe early would fail it under pipefail.
filters="$("$ffmpeg" -hide_banner -filters 2>/dev/null || true)"
if ! grep -qE '[[:space:]]libvmaf[[:space:]]' <<<"$filters"; then
  echo "the ffmpeg at $ffmpeg has no libvmaf filter" >&2
  exit 1
fi
echo "$ffmpeg"
echo "$python"
