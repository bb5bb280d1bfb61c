/**
 * Audio quality by the E-model (ITU-T G.107), from what a receiver's stats say: mouth-to-ear delay and
 * effective packet loss. Every formula and value is in docs/diagnosis.md with its source.
 */

/** A codec's equipment impairment (Ie) and packet-loss robustness (Bpl). */
export interface CodecImpairment {
  ie: number;
  bpl: number;
}

/**
 * G.711 with packet-loss concealment: Ie 0, Bpl 25.1 (ITU-T G.113 Appendix I). Opus: G.113's values for
 * Opus could not be read from this machine; until they are entered, Opus (which conceals loss at least
 * as well) is scored as G.711 with concealment. docs/diagnosis.md says so.
 */
export const CODECS: Record<string, CodecImpairment> = {
  opus: { ie: 0, bpl: 25.1 },
  pcmu: { ie: 0, bpl: 25.1 },
  pcma: { ie: 0, bpl: 25.1 },
};

/** R with every G.107 parameter at its default and no delay or loss. */
const R_DEFAULT = 93.2;

/** Opus and G.711 in WebRTC send 20-ms packets: the packetization part of the mouth-to-ear delay. */
export const PACKETIZATION_MS = 20;

/**
 * Delay impairment Id for the default G.107 parameters, in the closed form of Cole and Rosenbluth (2001):
 * 0.024·d + 0.11·(d − 177.3)·H(d − 177.3), d the one-way mouth-to-ear delay in ms.
 */
export function delayImpairment(d: number): number {
  return 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0);
}

/** Effective equipment impairment under random loss (G.107 §7.2, BurstR = 1): Ie + (95 − Ie)·Ppl / (Ppl + Bpl). */
export function lossImpairment(lossPct: number, codec: CodecImpairment): number {
  return codec.ie + ((95 - codec.ie) * lossPct) / (lossPct + codec.bpl);
}

/** R to MOS (G.107 Annex B): 1 below 0, 4.5 above 100. */
export function mosFromR(r: number): number {
  if (r <= 0) return 1;
  if (r >= 100) return 4.5;
  return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6;
}

export interface AudioConditions {
  rttMs: number;
  /** The receiver's jitter-buffer delay where reported; else estimated as twice the jitter. */
  jitterBufferMs: number;
  lossPct: number;
  codec: string | null;
}

/** The one-way mouth-to-ear delay the E-model reads, ms: half the round trip, the jitter buffer, and packetization. */
export const mouthToEarMs = ({ rttMs, jitterBufferMs }: Pick<AudioConditions, 'rttMs' | 'jitterBufferMs'>): number =>
  rttMs / 2 + jitterBufferMs + PACKETIZATION_MS;

/** R of the conditions, the codec's impairment as CODECS has it (or as given: bench:quality fits it to PESQ). */
export function audioR(
  c: AudioConditions,
  impairment: CodecImpairment = CODECS[(c.codec ?? 'opus').toLowerCase()] ?? CODECS.opus!,
): number {
  return R_DEFAULT - delayImpairment(mouthToEarMs(c)) - lossImpairment(Math.max(0, Math.min(100, c.lossPct)), impairment);
}

export const audioMos = (c: AudioConditions, impairment?: CodecImpairment) => mosFromR(audioR(c, impairment));

/**
 * What lowers an audio score: the points it would gain without its delay (mouth to ear, beyond
 * packetization), and without its loss. The score less its delay's part is what a listener hears
 * (`listeningMos`); the delay's part is what a conversation suffers besides, which no listening test hears.
 */
export function audioShortfall(c: AudioConditions): { delay: number; loss: number } {
  const mos = audioMos(c);
  return { delay: audioMos({ ...c, rttMs: 0, jitterBufferMs: 0 }) - mos, loss: audioMos({ ...c, lossPct: 0 }) - mos };
}

/**
 * What a listener hears of an audio window, 1–5: its score with the delay's impairment given back. A
 * listening test (ViSQOL, PESQ) judges this part; the E-model's whole score rates a conversation, which
 * also suffers the delay (docs/scores.md). "Sounds fine, but 400 ms late" is a high listening score and a
 * large delay part.
 */
export const listeningMos = (w: { mos: number; lowers: { delay?: number } }): number => Math.min(5, w.mos + (w.lowers.delay ?? 0));
