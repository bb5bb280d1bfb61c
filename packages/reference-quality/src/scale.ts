/**
 * Full-reference measures on the 1–5 scale of our scores, for an error in points: VMAF is built to predict
 * a viewer's 0–100 rating, so its line to 1–5 is the usual one (VMAF 100 → 5, 0 → 1); PESQ's P.862.2
 * wideband MOS-LQO is already on a 1–4.64 scale of listeners' opinion and is taken as it is.
 */
export const vmafToMos = (vmaf: number): number => 1 + (4 * Math.max(0, Math.min(100, vmaf))) / 100;
