import type { ClientInfo } from '@rtcscope/protocol';

/** "Chrome 131 · Windows · desktop · DE", what a participant's client is and its country, where known. */
export function ClientLabel({ client }: { client: ClientInfo }) {
  const browser = client.browser ? `${client.browser}${client.browserVersion ? ` ${client.browserVersion}` : ''}` : null;
  const parts = [browser, client.os, client.deviceType, client.country].filter(Boolean);
  if (!parts.length) return null;
  return (
    <span className="muted" data-testid="client-label" title={client.sdkVersion ? `rtcscope SDK ${client.sdkVersion}` : undefined}>
      ({parts.join(' · ')})
    </span>
  );
}
