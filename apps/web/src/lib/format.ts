/** Times are shown in the viewer's own time zone, with the zone named once where it matters. */
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
export const formatTime = (ms: number) => time.format(ms);
export const formatDateTime = (ms: number) => dateTime.format(ms);
const utcDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
/** A UTC day (the insights' day buckets), named as that day wherever the viewer is. */
export const formatUtcDate = (ms: number) => utcDate.format(ms);

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(sec).padStart(2, '0')}s`;
}

export function formatNumber(v: number | null | undefined, unit: string, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return `${v.toFixed(digits)} ${unit}`;
}

/** Long ids in event details (track ids are 36-character UUIDs) cut to their first 8 characters. */
export function shortIds(text: string): string {
  return text.replace(/[{]?[0-9A-Za-z][0-9A-Za-z-]{19,}[}]?/g, (id) => `${id.replace(/^\{/, '').slice(0, 8)}…`);
}

/** A file's size in the decimal units people see in their file managers. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const [value, unit] = bytes < 1e6 ? [bytes / 1e3, 'kB'] : bytes < 1e9 ? [bytes / 1e6, 'MB'] : [bytes / 1e9, 'GB'];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}

/** Tick steps a time axis may use, in seconds: the first that gives at most `MAX_TICKS` ticks is taken. */
const TICK_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];
const MAX_TICKS = 7;

/**
 * The ticks of a time axis over `domain` (epoch ms): whole multiples of a round step (10 s, 1 min, …),
 * the same for every panel given the same domain, so that the charts and the issue lanes line up.
 */
export function timeTicks([from, to]: readonly [number, number]): number[] {
  const spanS = Math.max(1, (to - from) / 1000);
  const stepMs = (TICK_STEPS_S.find((s) => spanS / s <= MAX_TICKS) ?? TICK_STEPS_S.at(-1)!) * 1000;
  const ticks: number[] = [];
  for (let t = Math.ceil(from / stepMs) * stepMs; t <= to; t += stepMs) ticks.push(t);
  return ticks;
}
