import type { CalibrationUpload } from '@rtcscope/protocol';

/** A calibration run as bench:quality uploads it, with `windows` made-up windows of both contents. */
export function calibrationUpload(windows: number): CalibrationUpload {
  return {
    setup: {
      sender: 'chromium',
      receiver: 'chromium',
      codec: 'VP8',
      width: 640,
      height: 360,
      fps: 30,
      callS: 60,
      scoreModel: 'bppScale 0.07',
    },
    windows: Array.from({ length: windows }, (_, k) => calibrationWindow(k)),
  };
}

export function calibrationWindow(k: number): CalibrationUpload['windows'][number] {
  return {
    content: k % 2 ? 'busy' : 'talking',
    case: 'cap-300',
    family: k % 3 ? 'cap' : 'clean',
    ts: 1_764_000_000_000 + k * 5000,
    score: 1 + (k % 40) / 10,
    vmaf: (k * 7) % 100,
    ssim: 0.9,
    psnr: 35.5,
    frozenShare: 0,
    skipped: 40,
  };
}
