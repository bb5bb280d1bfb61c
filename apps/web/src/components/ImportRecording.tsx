import type { RecordingImported } from '@rtcscope/protocol';
import { type DragEvent, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatBytes } from '../lib/format.js';
import { MAX_RECORDING_BYTES, type Upload, uploadRecording } from '../lib/upload.js';
import { ProgressBar } from './Progress.js';

type State =
  | { step: 'idle' }
  | { step: 'uploading'; name: string; sent: number; total: number; upload: Upload }
  | { step: 'reading'; name: string }
  | { step: 'done'; name: string; result: RecordingImported }
  | { step: 'failed'; name: string; message: string };

/**
 * Imports a recording (Chrome's webrtc-internals dump, or an rtcstats file) as a call: dropped here or
 * chosen, sent with a progress bar that can be cancelled, then read and judged by the server.
 */
export function ImportRecording({ onImported }: { onImported: () => void }) {
  const [state, setState] = useState<State>({ step: 'idle' });
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const start = (file: File) => {
    if (file.size > MAX_RECORDING_BYTES) {
      setState({
        step: 'failed',
        name: file.name,
        message: `The file is ${formatBytes(file.size)}; recordings up to ${formatBytes(MAX_RECORDING_BYTES)} are taken.`,
      });
      return;
    }
    const upload = uploadRecording(file, (sent, total) =>
      setState((s) => (s.step === 'uploading' ? (sent >= total ? { step: 'reading', name: file.name } : { ...s, sent, total }) : s)),
    );
    setState({ step: 'uploading', name: file.name, sent: 0, total: file.size, upload });
    upload.done.then(
      (result) => {
        setState({ step: 'done', name: file.name, result });
        if (!result.duplicate) onImported();
      },
      (err: Error) =>
        setState(
          err.name === 'AbortError'
            ? { step: 'failed', name: file.name, message: 'Cancelled: nothing of it was stored.' }
            : { step: 'failed', name: file.name, message: err.message },
        ),
    );
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const file = e.dataTransfer.files[0];
    if (file) start(file);
  };
  const busy = state.step === 'uploading' || state.step === 'reading';

  return (
    <section className="panel import" data-testid="import-recording">
      <h2>Import a recording</h2>
      <div
        className={`dropzone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
        data-testid="dropzone"
      >
        Drop a Chrome <code>webrtc-internals</code> dump or an <code>rtcstats</code> file here, or{' '}
        <button type="button" className="link" onClick={() => input.current?.click()} disabled={busy}>
          choose a file
        </button>{' '}
        (up to {formatBytes(MAX_RECORDING_BYTES)}, gzipped or not). It becomes a call with the same charts, scores and issues as a live one.
        <input
          ref={input}
          type="file"
          hidden
          data-testid="recording-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) start(file);
          }}
        />
      </div>
      {state.step === 'uploading' && (
        <p>
          Uploading {state.name} <ProgressBar fraction={state.total ? state.sent / state.total : 0} label={`Uploading ${state.name}`} />{' '}
          <button type="button" onClick={() => state.upload.cancel()} data-testid="cancel-import">
            Cancel
          </button>
        </p>
      )}
      {state.step === 'reading' && <p role="status">Reading {state.name} and judging the call…</p>}
      {state.step === 'done' && (
        <p role="status" data-testid="import-result">
          {state.result.duplicate
            ? `${state.name} was imported before, as call `
            : `Imported ${state.name} (${state.result.format}${state.result.browser ? `, ${state.result.browser}` : ''}, ${state.result.samples} samples) as call `}
          <Link to={`/calls/${encodeURIComponent(state.result.callId)}`}>{state.result.callId}</Link>.
        </p>
      )}
      {state.step === 'failed' && (
        <p className="error-text" role="alert" data-testid="import-error">
          {state.name}: {state.message}
        </p>
      )}
    </section>
  );
}
