import { getApiKey } from './auth.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GET from `/api/v1` with the stored key; errors carry a message a person can act on. */
export function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return request<T>('GET', path, undefined, signal);
}

/** GET text (an export) from `/api/v1` with the stored key. */
export function apiGetText(path: string): Promise<string> {
  return request<string>('GET', path, undefined, undefined, 'text');
}

/** POST, PUT, PATCH or DELETE to `/api/v1`; a refused body comes back as an ApiError with the server's message. */
export function apiSend<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body);
}

async function request<T>(method: string, path: string, body: unknown, signal?: AbortSignal, read: 'json' | 'text' = 'json'): Promise<T> {
  let res: Response;
  const headers: Record<string, string> = { authorization: `Bearer ${getApiKey() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    res = await fetch(`/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), ...(signal ? { signal } : {}) });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The rtcscope server cannot be reached. Is it running? Retrying when it is back.');
  }
  if (res.status === 204) return undefined as T;
  if (res.ok) return (read === 'text' ? await res.text() : await res.json()) as T;
  const answer = (await res.json().catch(() => ({}))) as { message?: string };
  if (res.status === 401) throw new ApiError(401, 'This API key is not valid. Sign in again with your project API key.');
  throw new ApiError(res.status, answer.message ?? `The server answered ${res.status}.`);
}
