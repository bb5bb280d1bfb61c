import { apiGetText } from '../lib/api.js';
import { download } from '../lib/download.js';
import { useAction } from '../lib/hooks.js';

const FORMATS = [
  {
    label: 'CSV',
    path: 'export.csv',
    file: 'csv',
    type: 'text/csv',
    testId: 'export-csv',
    title: 'one row per stream per interval, units in the header',
  },
  {
    label: 'rtcstats',
    path: 'export.rtcstats',
    file: 'rtcstats',
    type: 'text/plain',
    testId: 'export-rtcstats',
    title: 'an rtcstats dump (file format 3) that rtcstats tools, and this dashboard’s import, read',
  },
] as const;

/** Saves the call from the API: its samples as CSV, or the call as an rtcstats dump. */
export function ExportCall({ callId }: { callId: string }) {
  const { act, busy, error } = useAction();
  const save = (format: (typeof FORMATS)[number]) =>
    act(async () =>
      download(`call-${callId}.${format.file}`, format.type, await apiGetText(`/calls/${encodeURIComponent(callId)}/${format.path}`)),
    );
  return (
    <span>
      {busy
        ? 'Exporting…'
        : FORMATS.map((f) => (
            <button key={f.label} type="button" className="link" data-testid={f.testId} title={f.title} onClick={() => void save(f)}>
              Export {f.label}
            </button>
          ))}
      {error && <span className="error-text"> Export failed: {error.message}</span>}
    </span>
  );
}
