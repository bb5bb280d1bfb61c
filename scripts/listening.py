"""What a listener hears, per pair of 16-kHz mono float32 files, for bench:quality: PESQ (ITU-T P.862.2,
wideband) and ViSQOL v3 in speech mode (its deep-lattice mapping, the C++ tool's default).

PESQ punishes the time-stretching a jitter buffer does to follow its delay; ViSQOL, built for VoIP audio
that is warped in time, does not. Both are reported, each judged on its own.

Reads {"pairs": [{"ref": path, "deg": path}, ...]} on stdin and prints one JSON list: for each pair
{"pesq": MOS-LQO or null, "visqol": MOS-LQO or null, "error": why one could not judge it, or null}.
Where the listener heard next to nothing of speech that was sent (an outage), neither measure can judge
it, and both say the least they can: PESQ 1.04, ViSQOL 1.
Run with the Python that scripts/install-quality-tools.sh sets up.
"""
import json
import sys
import warnings

import numpy as np
from pesq import pesq
from visqol import VisqolApi

RATE = 16000
# Heard this far under what was sent (energy, 30 dB): silence where speech was due.
SILENT = 1e-3
FLOOR = {"pesq": 1.04, "visqol": 1.0}


def judged(name, measure):
    try:
        value = float(measure())
    except Exception as err:  # each package raises its own kinds for silent or unmatched signals
        return None, f"{name}: {type(err).__name__}: {err}"
    # JSON has no NaN, and a NaN is no judgement.
    return (value, None) if np.isfinite(value) else (None, f"{name}: gave no number")


def main():
    # The packages warn on stderr about what they then handle (a silent stretch scaled by NaN): not ours to print.
    warnings.simplefilter("ignore")
    visqol = VisqolApi()
    # The lattice mapping or nothing: without its runtime the package would fall back to a cruder one quietly.
    visqol.create(mode="speech", use_lattice_model=True)
    out = []
    for pair in json.load(sys.stdin)["pairs"]:
        ref = np.fromfile(pair["ref"], dtype="<f4").astype(np.float64)
        deg = np.fromfile(pair["deg"], dtype="<f4").astype(np.float64)
        if np.sum(deg**2) < SILENT * np.sum(ref**2):
            out.append({**FLOOR, "error": None})
            continue
        p, p_err = judged("PESQ", lambda: pesq(RATE, ref, deg, "wb"))
        v, v_err = judged("ViSQOL", lambda: visqol.measure_from_arrays(ref, deg, sample_rate=RATE).moslqo)
        errors = [e for e in (p_err, v_err) if e]
        out.append({"pesq": p, "visqol": v, "error": "; ".join(errors) or None})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
