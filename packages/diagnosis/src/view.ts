import { connectionFieldIndex, type ConnectionFieldName, streamFieldIndex, type StreamFieldName } from '@rtcscope/protocol';
import type { ConnectionMeta, DiagnosisEvent, Sample, StreamMeta } from './types.js';

/** How much of a stream's past the detectors may look at: the longest window any of them uses. */
const HISTORY_S = 60;

/** A stream as the detectors see it: what it is, and its recent samples, newest last. */
export class StreamView {
  readonly samples: Sample[] = [];
  constructor(readonly meta: StreamMeta) {}

  add(sample: Sample): void {
    if (this.samples.length && sample.ts <= this.samples.at(-1)!.ts) return;
    this.samples.push(sample);
    while (this.samples.length && this.samples[0]!.ts < sample.ts - HISTORY_S * 1000) this.samples.shift();
  }

  get first(): number | null {
    return this.samples[0]?.ts ?? null;
  }

  get latest(): Sample | undefined {
    return this.samples.at(-1);
  }

  /** A field of the newest sample (or of `sample`). */
  value(field: StreamFieldName, sample: Sample | undefined = this.latest): number | null {
    return sample?.v[streamFieldIndex(field)] ?? null;
  }

  /** The field's values over the last `seconds` up to the newest sample, oldest first. */
  values(field: StreamFieldName, seconds: number): number[] {
    const to = this.latest?.ts ?? 0;
    const k = streamFieldIndex(field);
    return this.samples.filter((s) => s.ts > to - seconds * 1000).flatMap((s) => (s.v[k] ?? null) === null ? [] : [s.v[k]!]);
  }

  peak(field: StreamFieldName, seconds: number): number | null {
    const xs = this.values(field, seconds);
    return xs.length ? Math.max(...xs) : null;
  }
}

export class ConnectionView {
  latest: Sample | undefined;
  constructor(readonly meta: ConnectionMeta) {}

  value(field: ConnectionFieldName): number | null {
    return this.latest?.v[connectionFieldIndex(field)] ?? null;
  }
}

/** The whole call as the detectors that compare participants see it. */
export interface CallView {
  streams: ReadonlyMap<number, StreamView>;
  connections: ReadonlyMap<number, ConnectionView>;
  /** Every event so far of a participant's connection, by connection id. */
  events: readonly DiagnosisEvent[];
}

/**
 * Each sent stream with each stream that receives its SSRC at another participant: both ends of one
 * media flow, which only the server sees (peer to peer; through an SFU the SSRCs differ and none pair).
 */
export function* flows(call: CallView): Generator<{ sender: StreamView; receiver: StreamView }> {
  const inbound = [...call.streams.values()].filter((s) => s.meta.direction === 'in');
  for (const sender of call.streams.values()) {
    if (sender.meta.direction !== 'out') continue;
    for (const receiver of inbound) if (receiver.meta.ssrc === sender.meta.ssrc && receiver.meta.participant !== sender.meta.participant) yield { sender, receiver };
  }
}
