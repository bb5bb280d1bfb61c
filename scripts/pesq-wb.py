"""PESQ (ITU-T P.862.2, wideband) of pairs of 16-kHz mono float32 files, for bench:quality.

Reads {"pairs": [{"ref": path, "deg": path}, ...]} on stdin and prints one JSON list: for each pair
{"pesq": MOS-LQO} or {"error": why} (e.g. no speech found in the reference). Run with the Python that
scripts/install-quality-tools.sh sets up (numpy and the pesq package).
"""
import json
import sys

import numpy as np
from pesq import pesq

RATE = 16000


def measure(pair):
    ref = np.fromfile(pair["ref"], dtype="<f4").astype(np.float64)
    deg = np.fromfile(pair["deg"], dtype="<f4").astype(np.float64)
    try:
        return {"pesq": float(pesq(RATE, ref, deg, "wb"))}
    except Exception as err:  # the package raises its own kinds for silent or unmatched signals
        return {"error": f"{type(err).__name__}: {err}"}


json.dump([measure(p) for p in json.load(sys.stdin)["pairs"]], sys.stdout)
