import {
  CONNECTION_FIELDS,
  type ConnectionFieldName,
  STREAM_FIELDS,
  type StreamFieldName,
  connectionFieldIndex,
  streamFieldIndex,
} from '@rtcscope/protocol';
import type { Sample, StreamMeta } from './types.js';

/** A stream sample at second `t` with the given fields, the rest unknown. */
export function streamSample(id: number, t: number, fields: Partial<Record<StreamFieldName, number | null>>): Sample {
  const v: (number | null)[] = new Array<number | null>(STREAM_FIELDS.length).fill(null);
  for (const [name, value] of Object.entries(fields)) v[streamFieldIndex(name as StreamFieldName)] = value ?? null;
  return { id, ts: t * 1000, v };
}

export function connectionSample(id: number, t: number, fields: Partial<Record<ConnectionFieldName, number | null>>): Sample {
  const v: (number | null)[] = new Array<number | null>(CONNECTION_FIELDS.length).fill(null);
  for (const [name, value] of Object.entries(fields)) v[connectionFieldIndex(name as ConnectionFieldName)] = value ?? null;
  return { id, ts: t * 1000, v };
}

export const stream = (id: number, participant: string, direction: 'in' | 'out', kind: 'audio' | 'video', ssrc = id): StreamMeta => ({
  id,
  participant,
  connectionId: participant === 'alice' ? 1 : 2,
  direction,
  kind,
  ssrc,
  codec: null,
});

/** Samples of one stream for seconds [from, to), each from `fields(t)`. */
export function series(
  id: number,
  from: number,
  to: number,
  fields: (t: number) => Partial<Record<StreamFieldName, number | null>>,
): Sample[] {
  return Array.from({ length: to - from }, (_, k) => streamSample(id, from + k, fields(from + k)));
}
