import recorded from '../packages/sdk/src/fixtures/chromium-loopback.json' with { type: 'json' };

type Entry = Record<string, unknown> & { id: string; type: string; timestamp: number };

/**
 * A stand-in RTCPeerConnection for Node benchmarks: one connection with 4 streams (audio and video,
 * in and out) whose getStats() replays a recorded Chromium report with counters advancing each call
 * at the recorded rate.
 */
export function fakePeerConnection(): RTCPeerConnection {
  const [s0, s1] = recorded.snapshots as unknown as { sender: Entry[]; receiver: Entry[] }[];
  const merge = (s: { sender: Entry[]; receiver: Entry[] }): Entry[] => [
    ...s.sender,
    ...s.receiver.filter((e) => e.type === 'inbound-rtp' || e.type === 'remote-outbound-rtp' || e.type === 'codec').map((e) => ({ ...e, id: `r-${e.id}`, codecId: e.codecId ? `r-${e.codecId}` : undefined })),
  ];
  const base = merge(s0!);
  const next = new Map(merge(s1!).map((e) => [e.id, e]));
  let tick = 0;
  const pc = {
    connectionState: 'connected',
    addEventListener: () => {},
    removeEventListener: () => {},
    getSenders: () => [],
    getStats: async () => {
      tick++;
      const report = new Map<string, Entry>();
      for (const e of base) {
        const later = next.get(e.id);
        const out: Entry = { ...e, timestamp: e.timestamp + tick * 1000 };
        for (const [k, v] of Object.entries(e)) {
          const w = later?.[k];
          if (k !== 'timestamp' && typeof v === 'number' && typeof w === 'number' && w > v && /bytes|packets|frames|Count|total/i.test(k)) out[k] = v + tick * (w - v);
        }
        report.set(e.id, out);
      }
      return report;
    },
  };
  return pc as unknown as RTCPeerConnection;
}
