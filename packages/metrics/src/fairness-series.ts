import { jainIndex } from './fairness.js';

export interface RateObservation {
  /** Start of the interval, epoch ms. */
  ts: number;
  participant: string;
  direction: 'in' | 'out';
  kbps: number;
}

export interface FairnessAt {
  ts: number;
  send: number | null;
  receive: number | null;
  sendKbps: Record<string, number>;
  receiveKbps: Record<string, number>;
}

/**
 * Jain's index per interval over the participants' total sending rates and, apart, over their total
 * receiving rates. A participant's streams in one direction (audio, video, simulcast layers, several
 * connections in a mesh) add up to its rate. Intervals come out in time order.
 */
export function fairnessOverTime(observations: Iterable<RateObservation>): FairnessAt[] {
  const byTs = new Map<number, FairnessAt>();
  for (const o of observations) {
    let at = byTs.get(o.ts);
    if (!at) {
      at = { ts: o.ts, send: null, receive: null, sendKbps: {}, receiveKbps: {} };
      byTs.set(o.ts, at);
    }
    const rates = o.direction === 'out' ? at.sendKbps : at.receiveKbps;
    rates[o.participant] = (rates[o.participant] ?? 0) + o.kbps;
  }
  const out = [...byTs.values()].sort((a, b) => a.ts - b.ts);
  for (const at of out) {
    at.send = jainIndex(Object.values(at.sendKbps));
    at.receive = jainIndex(Object.values(at.receiveKbps));
  }
  return out;
}
