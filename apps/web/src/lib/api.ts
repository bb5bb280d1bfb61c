import { credentialHeaders, currentCredentials } from './auth.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** GET from `/api/v1` as this tab's person or key; errors carry a message a person can act on. */
export function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  return request<T>('GET', path, undefined, signal);
}

/** GET text (an export) from `/api/v1`. */
export function apiGetText(path: string): Promise<string> {
  return request<string>('GET', path, undefined, undefined, 'text');
}

/** POST, PUT, PATCH or DELETE to `/api/v1`; a refused body comes back as an ApiError with the server's message. */
export function apiSend<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body);
}

async function request<T>(method: string, path: string, body: unknown, signal?: AbortSignal, read: 'json' | 'text' = 'json'): Promise<T> {
  let res: Response;
  const headers: Record<string, string> = credentialHeaders(method);
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    res = await fetch(`/api/v1${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The rtcscope server cannot be reached. Is it running? Retrying when it is back.');
  }
  if (res.status === 204) return undefined as T;
  if (res.ok) return (read === 'text' ? await res.text() : await res.json()) as T;
  const answer = (await res.json().catch(() => ({}))) as { message?: string };
  // Signing in, a 401 says what was wrong (the password, a used link); elsewhere, that the tab is signed out.
  if (res.status === 401 && !path.startsWith('/auth/')) throw new ApiError(401, notSignedIn());
  throw new ApiError(res.status, answer.message ?? `The server answered ${res.status}.`);
}

/** What a 401 means to this tab. */
export function notSignedIn(): string {
  return currentCredentials()?.kind === 'key'
    ? 'This API key no longer opens the project. Sign in again.'
    : 'You are signed out (the session ended or was ended elsewhere). Sign in again.';
}
