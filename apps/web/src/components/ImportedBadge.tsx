import type { Metadata } from '@rtcscope/protocol';
import { formatDateTime } from '../lib/format.js';

/** Marks a call made from an imported recording, with its file, format, browser and when it was imported. */
export function ImportedBadge({ metadata, detailed = false }: { metadata: Metadata; detailed?: boolean }) {
  const file = metadata.recording;
  if (typeof file !== 'string') return null;
  const importedAt = typeof metadata.importedAt === 'string' ? Date.parse(metadata.importedAt) : NaN;
  const about = [
    `${String(metadata.recordingFormat ?? 'recording')} file ${file}`,
    typeof metadata.browser === 'string' ? metadata.browser : null,
    metadata.loopback === true ? 'a loopback page (both ends of the call in one page, a participant each)' : null,
  ]
    .filter(Boolean)
    .join(', ');
  const when = Number.isFinite(importedAt) ? `imported ${formatDateTime(importedAt)}` : 'imported';
  return (
    <>
      {' '}
      <span className="badge imported" title={`${when}: ${about}`} data-testid="imported-badge">
        imported
      </span>
      {detailed && (
        <span className="muted" data-testid="imported-from">
          {' '}
          from {about}, {when}
        </span>
      )}
      {detailed && metadata.loopback !== true && (
        <span className="muted small" data-testid="recorded-side">
          {' '}
          One side of the call, as its browser recorded it: the far side's device and uplink show only through what reached this one, so
          what it received late, lost or frozen cannot be told apart from the path between, and the far side's own issues are not raised.
        </span>
      )}
    </>
  );
}
