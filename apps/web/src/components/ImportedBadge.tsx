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
    </>
  );
}
