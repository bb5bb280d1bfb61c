import type { RecordingImported } from '@rtcscope/protocol';
import { ApiError, notSignedIn } from './api.js';
import { credentialHeaders } from './auth.js';

/** The largest recording the server takes (recordings/import.ts). */
export const MAX_RECORDING_BYTES = 200_000_000;

export interface Upload {
  done: Promise<RecordingImported>;
  cancel(): void;
}

/**
 * Sends a recording file to `POST /api/v1/recordings` as it is, telling the bytes sent as they go
 * (fetch cannot tell an upload's progress; XMLHttpRequest can), and can be cancelled.
 */
export function uploadRecording(file: File, onProgress: (sent: number, total: number) => void): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<RecordingImported>((resolve, reject) => {
    xhr.open('POST', `/api/v1/recordings?name=${encodeURIComponent(file.name)}`);
    for (const [name, value] of Object.entries(credentialHeaders('POST'))) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const answer = (() => {
        try {
          return JSON.parse(xhr.responseText) as RecordingImported & { message?: string };
        } catch {
          return null;
        }
      })();
      if (xhr.status === 200 || xhr.status === 201) resolve(answer!);
      else if (xhr.status === 401) reject(new ApiError(401, notSignedIn()));
      else reject(new ApiError(xhr.status, answer?.message ?? `The server answered ${xhr.status}.`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The rtcscope server cannot be reached. Is it running?'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    xhr.send(file);
  });
  return { done, cancel: () => xhr.abort() };
}
