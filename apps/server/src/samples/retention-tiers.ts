/**
 * Retention tiers in id order: a stream's or connection's id is `tier << 48` plus a sequence number,
 * and every day's sample partitions are split into one sub-partition per tier. The order is stored in
 * every id (and in rtcscope_id_base in the migrations): append tiers, never reorder.
 */
export const RETENTION_TIERS = [30, 7, 90, 365] as const;
export type RetentionDays = (typeof RETENTION_TIERS)[number];

/**
 * The tier after the retention tiers: streams and connections of calls made from imported recordings
 * (`rtcscope_imported_id_base()` in the migrations). Their samples may be dated years back, so retention
 * never drops its day partitions: an imported call's samples go with it when it expires (recordings/expiry.ts).
 */
export const IMPORTED_TIER = RETENTION_TIERS.length;
/** Every day's sample partitions are split into this many tiers: the retention tiers and the imported one. */
export const PARTITION_TIERS = IMPORTED_TIER + 1;

export const ID_TIER_SHIFT = 48;
const TIER_SPAN = 2 ** ID_TIER_SHIFT;

/** The id range [from, to) of a tier. */
export function tierRange(tier: number): { from: number; to: number } {
  return { from: tier * TIER_SPAN, to: (tier + 1) * TIER_SPAN };
}

/** 10-second rollups outlive the raw samples they summarize by this factor (capped at two years). */
export const ROLLUP_RETENTION_FACTOR = 4;
export const MAX_ROLLUP_RETENTION_DAYS = 730;
