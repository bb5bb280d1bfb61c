import { useState } from 'react';
import { apiGetText } from '../lib/api.js';
import { download } from '../lib/download.js';

/** Saves the call's samples as CSV (one row per stream per interval, units in the header), from the API. */
export function ExportCall({ callId }: { callId: string }) {
  const [state, setState] = useState<'idle' | 'busy' | { error: string }>('idle');
  const save = async () => {
    setState('busy');
    try {
      download(`call-${callId}.csv`, 'text/csv', await apiGetText(`/calls/${encodeURIComponent(callId)}/export.csv`));
      setState('idle');
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  return (
    <span>
      <button type="button" className="link" data-testid="export-csv" onClick={() => void save()} disabled={state === 'busy'}>
        {state === 'busy' ? 'Exporting…' : 'Export CSV'}
      </button>
      {typeof state === 'object' && <span className="error-text"> Export failed: {state.error}</span>}
    </span>
  );
}
