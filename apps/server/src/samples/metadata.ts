import { LIMITS } from '@rtcscope/protocol';

/**
 * SQL that merges `added` into `stored` metadata within the caps (LIMITS), or fails the statement with
 * an error `metadataOverCap` recognizes, naming `target`: nothing the message carried is stored then.
 */
export function mergeMetadata(stored: string, added: string, target: MetadataTarget): string {
  return `rtcscope_merge_metadata(${stored}, ${added}, '${target}', ${LIMITS.maxStoredMetadataKeys}, ${LIMITS.maxStoredMetadataBytes})`;
}

export type MetadataTarget = 'participant' | 'call';

/** Which stored metadata a refused merge would have taken past its cap, or null for any other error. */
export function metadataOverCap(err: unknown): MetadataTarget | null {
  const e = err as { code?: string; detail?: string };
  return e.code === 'RS001' && (e.detail === 'participant' || e.detail === 'call') ? e.detail : null;
}
