import type { CalibrationUpload } from '@rtcscope/protocol';

/** A calibration run as bench:quality uploads it, with `windows` made-up video windows of both contents and `heard` audio ones. */
export function calibrationUpload(windows: number, heard = 0): CalibrationUpload {
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
    ...(heard ? { heard: Array.from({ length: heard }, (_, k) => heardWindow(k)) } : {}),
  };
}

export function heardWindow(k: number): NonNullable<CalibrationUpload['heard']>[number] {
  return {
    content: k % 2 ? 'busy' : 'talking',
    case: 'loss-10',
    family: k % 3 ? 'random loss' : 'clean',
    ts: 1_764_000_000_000 + k * 5000,
    score: 1 + (k % 35) / 10,
    pesq: k % 7 ? 1.04 + (k % 36) / 10 : null,
    correlation: 0.5,
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
