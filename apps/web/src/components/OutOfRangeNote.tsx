import type { CallDetail } from '@rtcscope/protocol';

const ARROW = { out: '↑', in: '↓' } as const;

/**
 * Streams whose browser reported values no stream can hold (an `audioLevel` of -1, a resolution of 0,
 * NaN): those values were stored as null and the rest of each sample kept. Nothing shows when none did.
 */
export function OutOfRangeNote({ detail }: { detail: CallDetail }) {
  const streams = detail.participants.flatMap((p) =>
    p.connections.flatMap((c) => c.streams.filter((s) => s.outOfRange > 0).map((s) => ({ ...s, participant: p.id }))),
  );
  if (!streams.length) return null;
  return (
    <p className="muted small" data-testid="out-of-range">
      Values outside what a stream can hold, stored as empty (the rest of each sample kept):{' '}
      {streams.map((s, k) => (
        <span key={s.id}>
          {k > 0 && '; '}
          {s.participant} {ARROW[s.direction]} {s.kind} (SSRC {s.ssrc}): {s.outOfRange}
        </span>
      ))}
      . See docs/wire-format.md for each field's range.
    </p>
  );
}
