import type { Action, Me, OrganizationInfo } from '@rtcscope/protocol';

/**
 * Who this tab acts as: a person signed in (their session cookie, which no script can read; the CSRF
 * token `/auth/me` gives; the project they chose), or a project API key (a program's, carried once in
 * the URL fragment `#key=`, kept in storage once accepted). A key a link brings is only offered — to a
 * signed-in person as `offeredKey`, to nobody signed in as `offer` — until a click that names its
 * project accepts it: anyone can send a link, and it must not quietly put a person in another project
 * (where what they import, or a TURN secret they set, would go to whoever made the link).
 */
export type Credentials =
  | { kind: 'session'; me: Me; projectId: string | null; offeredKey: string | null }
  | { kind: 'key'; apiKey: string }
  | { kind: 'offer'; apiKey: string };

const KEY_STORAGE = 'rtcscope.apiKey';
const OFFERED_STORAGE = 'rtcscope.offeredKey';
const PROJECT_STORAGE = 'rtcscope.project';
let credentials: Credentials | null = null;

/** A key in the URL fragment (never sent to a server log) is taken from it, to be used or offered. */
export function takeKeyFromUrl(): boolean {
  const match = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
  if (!match?.[1]) return false;
  sessionStorage.setItem(OFFERED_STORAGE, decodeURIComponent(match[1]));
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return true;
}

export function setApiKey(key: string | null): void {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

/** A key a link offered, accepted: the tab starts over with it. */
export function acceptOfferedKey(key: string): void {
  setApiKey(key);
  window.location.assign('/');
}

/**
 * Finds out who this tab is: the session's person (with a key a link offered them), else the stored API
 * key, or the one a link brought (null: nobody signed in).
 */
export async function loadCredentials(): Promise<Credentials | null> {
  const offered = sessionStorage.getItem(OFFERED_STORAGE);
  const apiKey = localStorage.getItem(KEY_STORAGE);
  if (apiKey && !offered) return (credentials = { kind: 'key', apiKey });
  const res = await fetch('/api/v1/auth/me');
  // Taken only once the server has answered: a page left while asking (a link opened, then another page
  // at once) leaves the offered key for the next one, which would otherwise open signed out.
  sessionStorage.removeItem(OFFERED_STORAGE);
  if (res.status === 401) {
    if (offered) return (credentials = { kind: 'offer', apiKey: offered });
    return (credentials = apiKey ? { kind: 'key', apiKey } : null);
  }
  if (!res.ok) throw new Error(`The server answered ${res.status} when asked who is signed in. Try again in a moment.`);
  const me = (await res.json()) as Me;
  const projects = me.organizations.flatMap((o) => o.projects.map((p) => p.id));
  const saved = localStorage.getItem(PROJECT_STORAGE);
  return (credentials = {
    kind: 'session',
    me,
    projectId: saved && projects.includes(saved) ? saved : (projects[0] ?? null),
    offeredKey: offered,
  });
}

export function currentCredentials(): Credentials | null {
  return credentials;
}

/** The organization of the project this tab shows, with the person's role in it; null for an API key. */
export function currentOrganization(): OrganizationInfo | null {
  if (credentials?.kind !== 'session') return null;
  const { me, projectId } = credentials;
  return me.organizations.find((o) => o.projects.some((p) => p.id === projectId)) ?? null;
}

/**
 * Whether the person may do `action` in this tab's project, as the server's policy told (`GET /auth/me`),
 * so pages show only the controls that work. With an API key the page cannot know its scopes: it shows
 * them all, and the server refuses what it may not.
 */
export function mayDo(action: Action): boolean {
  if (credentials?.kind !== 'session') return true;
  return currentOrganization()?.can.includes(action) ?? false;
}

/** The headers a request to `/api/v1` carries: the key, or the project and (for a change) the CSRF token. */
export function credentialHeaders(method: string): Record<string, string> {
  if (credentials?.kind === 'key') return { authorization: `Bearer ${credentials.apiKey}` };
  if (credentials?.kind !== 'session') return {};
  return {
    ...(credentials.projectId ? { 'rtcscope-project': credentials.projectId } : {}),
    ...(method === 'GET' ? {} : { 'x-csrf-token': credentials.me.csrfToken }),
  };
}

/** What the live socket's handshake carries (a session's cookie goes with it by itself). */
export function liveAuth(): Record<string, string> {
  if (credentials?.kind === 'key') return { apiKey: credentials.apiKey };
  return credentials?.kind === 'session' && credentials.projectId ? { project: credentials.projectId } : {};
}

/** The project this browser shows from its next page load on (when the person may see it). */
export function rememberProject(projectId: string): void {
  localStorage.setItem(PROJECT_STORAGE, projectId);
}

/** Shows another project: the page starts over on it. */
export function chooseProject(projectId: string, path = '/'): void {
  rememberProject(projectId);
  window.location.assign(path);
}

export async function signOut(): Promise<void> {
  if (credentials?.kind === 'session') {
    await fetch('/api/v1/auth/sign-out', { method: 'POST', headers: credentialHeaders('POST') }).catch(() => undefined);
  }
  setApiKey(null);
  window.location.assign('/sign-in');
}
