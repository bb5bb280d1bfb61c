import recorded from '../packages/sdk/src/fixtures/chromium-loopback.json' with { type: 'json' };

type Entry = Record<string, unknown> & { id: string; type: string; timestamp: number };

/**
 * A stand-in RTCPeerConnection for Node benchmarks: one connection with 4 streams (audio and video,
 * in and out) whose getStats() replays a recorded Chromium report with counters advancing each call
 * at about the recorded rate.
 */
export function fakePeerConnection(): RTCPeerConnection {
  const [s0, s1] = recorded.snapshots as unknown as { sender: Entry[]; receiver: Entry[] }[];
  const merge = (s: { sender: Entry[]; receiver: Entry[] }): Entry[] => [
    ...s.sender,
    ...s.receiver
      .filter((e) => e.type === 'inbound-rtp' || e.type === 'remote-outbound-rtp' || e.type === 'codec')
      .map((e) => ({ ...e, id: `r-${e.id}`, codecId: e.codecId ? `r-${e.codecId}` : undefined })),
  ];
  const base = merge(s0!);
  const next = new Map(merge(s1!).map((e) => [e.id, e]));
  let tick = 0;
  // Counters advance at the recorded rate give or take 20 % each second, and gauges (jitter, RTT, FPS)
  // wander by 10 %: stored series vary as real ones do, which is what compression has to cope with.
  const advanced = new Map<string, number>();
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
          if (k === 'timestamp' || typeof v !== 'number') continue;
          const w = later?.[k];
          if (typeof w === 'number' && w > v && /bytes|packets|frames|Count|total/i.test(k)) {
            const key = `${e.id}.${k}`;
            const sum = (advanced.get(key) ?? 0) + Math.round((w - v) * (0.8 + 0.4 * Math.random()));
            advanced.set(key, sum);
            out[k] = v + sum;
          } else if (/jitter|roundTripTime|framesPerSecond/.test(k)) out[k] = v * (0.9 + 0.2 * Math.random());
        }
        report.set(e.id, out);
      }
      return report;
    },
  };
  return pc as unknown as RTCPeerConnection;
}
