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
export async function apiGet<T>(path: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { headers: { authorization: `Bearer ${getApiKey() ?? ''}` }, ...(signal ? { signal } : {}) });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The rtcscope server cannot be reached. Is it running? Retrying when it is back.');
  }
  if (res.ok) return (await res.json()) as T;
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  if (res.status === 401) throw new ApiError(401, 'This API key is not valid. Sign in again with your project API key.');
  throw new ApiError(res.status, body.message ?? `The server answered ${res.status}.`);
}
