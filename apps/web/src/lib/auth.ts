const STORAGE_KEY = 'rtcscope.apiKey';

/** The API key comes once in the URL fragment (never sent to a server log), then lives in storage. */
export function takeKeyFromUrl(): boolean {
  const match = /(?:^#|&)key=([^&]+)/.exec(window.location.hash);
  if (!match?.[1]) return false;
  localStorage.setItem(STORAGE_KEY, decodeURIComponent(match[1]));
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return true;
}

export function getApiKey(): string | null {
  return localStorage.getItem(STORAGE_KEY);
}

export function setApiKey(key: string | null): void {
  if (key) localStorage.setItem(STORAGE_KEY, key);
  else localStorage.removeItem(STORAGE_KEY);
}
