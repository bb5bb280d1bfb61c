import { CallDiagnosis } from './engine.js';
import type { ScorePoint } from './scores/windows.js';
import type { ConnectionMeta, DiagnosisEvent, Issue, Sample, StreamMeta } from './types.js';

export interface Recording {
  streams: StreamMeta[];
  connections: ConnectionMeta[];
  streamSamples: Sample[];
  connectionSamples: Sample[];
  events: DiagnosisEvent[];
}

/** How far behind the newest data a live diagnosis looks across participants; a recording is read the same way. */
export const TICK_LAG_MS = 1500;

/**
 * Diagnoses a whole recorded call (stored samples, or an imported recording) as the live diagnosis
 * would have as it came in: second by second, connections before streams before events, looking across
 * participants `TICK_LAG_MS` behind.
 */
export function diagnoseRecording(r: Recording): { issues: Issue[]; scores: ScorePoint[] } {
  const d = new CallDiagnosis();
  for (const c of r.connections) d.declareConnection(c);
  for (const s of r.streams) d.declareStream(s);
  const second = (ts: number) => Math.floor(ts / 1000);
  const bySecond = new Map<number, { connections: Sample[]; streams: Sample[]; events: DiagnosisEvent[] }>();
  const at = (ts: number) => {
    const k = second(ts);
    let slot = bySecond.get(k);
    if (!slot) bySecond.set(k, (slot = { connections: [], streams: [], events: [] }));
    return slot;
  };
  for (const s of r.connectionSamples) at(s.ts).connections.push(s);
  for (const s of r.streamSamples) at(s.ts).streams.push(s);
  for (const e of r.events) at(e.ts).events.push(e);
  const scores: ScorePoint[] = [];
  const seconds = [...bySecond.keys()].sort((a, b) => a - b);
  for (const k of seconds) {
    const slot = bySecond.get(k)!;
    const byTime = (a: Sample, b: Sample) => a.ts - b.ts;
    d.addConnectionSamples(slot.connections.sort(byTime));
    scores.push(...d.addStreamSamples(slot.streams.sort(byTime)).scores);
    d.addEvents(slot.events.sort((a, b) => a.ts - b.ts));
    d.tick((k + 1) * 1000 - TICK_LAG_MS);
  }
  if (seconds.length) d.tick((seconds.at(-1)! + 1) * 1000 + TICK_LAG_MS);
  scores.push(...d.finish());
  // A recording is a call that ended: what was still wrong at its end ends with it.
  const last = d.lastSampleAt;
  if (last !== null) d.end(last);
  return { issues: d.issues(), scores };
}
