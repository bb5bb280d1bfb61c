import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a browser says another site's page sent a request or opened a socket: `Sec-Fetch-Site` where
 * it is sent, else an `Origin` that is not `host` (this server, as the request names it). Programs send
 * neither, and carry no one's cookies.
 */
export function crossSite(headers: IncomingHttpHeaders, host: string | undefined): boolean {
  const site = first(headers['sec-fetch-site']);
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = first(headers.origin);
  if (!origin) return false;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
