/**
 * Jain's fairness index J = (Σx)² / (n·Σx²) over the flows' rates: 1 when all are equal, 1/n when one
 * flow takes everything. Flows with an unknown rate are left out; a set where nobody sends is fair (1).
 */
export function jainIndex(rates: readonly (number | null)[]): number | null {
  const known = rates.filter((r): r is number => r !== null && Number.isFinite(r) && r >= 0);
  if (known.length === 0) return null;
  let sum = 0;
  let sumSquares = 0;
  for (const r of known) {
    sum += r;
    sumSquares += r * r;
  }
  if (sumSquares === 0) return 1;
  return (sum * sum) / (known.length * sumSquares);
}
