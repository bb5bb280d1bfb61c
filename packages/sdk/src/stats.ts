/**
 * The subset of getStats() entries the SDK reads. Browsers omit fields freely, so every field is
 * optional; the adapters below pick what each browser actually reports.
 */
export interface StatEntry {
  id: string;
  type: string;
  timestamp: number;
  [field: string]: unknown;
}

export type StatsSnapshot = ReadonlyMap<string, StatEntry>;

export function snapshotFrom(report: { forEach(cb: (value: StatEntry) => void): void }): StatsSnapshot {
  const map = new Map<string, StatEntry>();
  report.forEach((entry) => map.set(entry.id, entry));
  return map;
}

export function num(entry: StatEntry | undefined, field: string): number | undefined {
  const v = entry?.[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function str(entry: StatEntry | undefined, field: string): string | undefined {
  const v = entry?.[field];
  return typeof v === 'string' ? v : undefined;
}

export function ofType(snapshot: StatsSnapshot, type: string): StatEntry[] {
  const out: StatEntry[] = [];
  for (const e of snapshot.values()) if (e.type === type) out.push(e);
  return out;
}

/**
 * The candidate pair in use. Chromium and Safari name it from the transport; Firefox flags the pair
 * itself (`selected`); a browser with neither gets the nominated, succeeded pair.
 */
export function selectedCandidatePair(snapshot: StatsSnapshot): StatEntry | undefined {
  for (const t of ofType(snapshot, 'transport')) {
    const id = str(t, 'selectedCandidatePairId');
    if (id && snapshot.has(id)) return snapshot.get(id);
  }
  const pairs = ofType(snapshot, 'candidate-pair');
  return pairs.find((p) => p.selected === true) ?? pairs.find((p) => p.nominated === true && p.state === 'succeeded');
}
