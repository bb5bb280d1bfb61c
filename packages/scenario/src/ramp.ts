/** Steepness of exponential ramps: the last tenth of the time covers about half of the change. */
const K = 8;

/**
 * Where a ramp from `from` to `to` stands at fraction `u` (0..1) of its duration. Linear moves evenly;
 * exponential rises slowly then fast when increasing, and falls fast then slowly when decreasing, as
 * an exponential growth or decay would (Jansen et al. 2017, Table 2, give no base; K fixes one).
 */
export function rampValue(from: number, to: number, shape: 'linear' | 'exponential', u: number): number {
  const x = Math.min(1, Math.max(0, u));
  if (shape === 'linear') return from + (to - from) * x;
  const grow = (2 ** (K * x) - 1) / (2 ** K - 1);
  const decay = 1 - (2 ** (K * (1 - x)) - 1) / (2 ** K - 1);
  return from + (to - from) * (to >= from ? grow : decay);
}
