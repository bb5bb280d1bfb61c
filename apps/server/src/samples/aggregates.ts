import type { FieldSpec } from '@rtcscope/protocol';

/** Shape fields keep their largest value in a bucket (an average resolution is no resolution). */
const MAX_FIELDS = new Set(['width', 'height', 'quality_limitation']);

/** How a field's values over an interval become one value, in SQL: the mean, or the maximum for shapes. */
export function aggregate(spec: FieldSpec): string {
  return `${MAX_FIELDS.has(spec.column) ? 'max' : 'avg'}(${spec.column})`;
}
