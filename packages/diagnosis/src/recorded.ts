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

/** A stretch of a recording: its samples and events from one moment to another. */
export type RecordingPart = Pick<Recording, 'streamSamples' | 'connectionSamples' | 'events'>;

/**
 * Diagnoses a recorded call (stored samples, or an imported recording) as the live diagnosis would have
 * as it came in: second by second, connections before streams before events, looking across
 * participants `TICK_LAG_MS` behind. It takes the recording in stretches of whole seconds, in order, so
 * a long call need not be held whole.
 */
export class RecordingDiagnosis {
  private readonly d = new CallDiagnosis();
  private readonly scores: ScorePoint[] = [];
  private lastSecond: number | null = null;

  constructor(meta: Pick<Recording, 'streams' | 'connections'>) {
    for (const c of meta.connections) this.d.declareConnection(c);
    for (const s of meta.streams) this.d.declareStream(s);
  }

  /** The next stretch: whole seconds, after every stretch before it. */
  add(part: RecordingPart): void {
    const bySecond = new Map<number, { connections: Sample[]; streams: Sample[]; events: DiagnosisEvent[] }>();
    const at = (ts: number) => {
      const k = Math.floor(ts / 1000);
      let slot = bySecond.get(k);
      if (!slot) bySecond.set(k, (slot = { connections: [], streams: [], events: [] }));
      return slot;
    };
    for (const s of part.connectionSamples) at(s.ts).connections.push(s);
    for (const s of part.streamSamples) at(s.ts).streams.push(s);
    for (const e of part.events) at(e.ts).events.push(e);
    const byTime = (a: { ts: number }, b: { ts: number }) => a.ts - b.ts;
    for (const k of [...bySecond.keys()].sort((a, b) => a - b)) {
      const slot = bySecond.get(k)!;
      this.d.addConnectionSamples(slot.connections.sort(byTime));
      this.scores.push(...this.d.addStreamSamples(slot.streams.sort(byTime)).scores);
      this.d.addEvents(slot.events.sort(byTime));
      this.d.tick((k + 1) * 1000 - TICK_LAG_MS);
      this.lastSecond = k;
    }
  }

  /** The recording has ended: what was still wrong at its end ends with it. */
  finish(): { issues: Issue[]; scores: ScorePoint[] } {
    if (this.lastSecond !== null) this.d.tick((this.lastSecond + 1) * 1000 + TICK_LAG_MS);
    this.scores.push(...this.d.finish());
    const last = this.d.lastSampleAt;
    if (last !== null) this.d.end(last);
    return { issues: this.d.issues(), scores: this.scores };
  }
}

/** A whole recording diagnosed at once. */
export function diagnoseRecording(r: Recording): { issues: Issue[]; scores: ScorePoint[] } {
  const diagnosis = new RecordingDiagnosis(r);
  diagnosis.add(r);
  return diagnosis.finish();
}
