/**
 * What recordings may cost the server, whatever the file: each bound is refused with a clear error
 * naming it, before memory or CPU past it is spent. Real dumps stay far inside them (docs/recordings.md).
 */
export const RECORDING_LIMITS = {
  /** Recordings one project may be importing at once on one node: a tenant's uploads hold a bounded share of it. */
  importsAtOnce: 2,
  /** The file as uploaded (gzipped or not): a day-long dump of a busy page. */
  uploadBytes: 200_000_000,
  /** The text once unzipped: real dumps gzip 5–20×, a bomb thousands of times. */
  textBytes: 1_000_000_000,
  /** …and to no more than this many times its gzipped size (past a first `unzipFloorBytes`): real dumps gzip 5–30×. */
  unzipRatio: 100,
  unzipFloorBytes: 32_000_000,
  /** Containers inside containers: a dump nests 5 deep, an rtcstats report 3. */
  depth: 32,
  /** One JSON string, number or key: a series' values kept as text run to a few hundred kB. */
  tokenChars: 4_000_000,
  /** One rtcstats line: a full getStats report of a busy page is a few hundred kB. */
  lineChars: 4_000_000,
  /** Items in one value read whole (a stats series with its values, a log entry). */
  assembledItems: 200_000,
  /** One stats series (Chrome's page keeps the last 1,000 values of each). */
  seriesValues: 100_000,
  /**
   * Values (webrtc-internals; a string counts once more per 16 characters) or stats fields (rtcstats)
   * held at once while connections are put back together.
   */
  heldValues: 4_000_000,
} as const;
