import type { ClientInfo } from '@rtcscope/protocol';

/** "Chrome 131 · Windows · desktop", what a participant's client is, where it is known. */
export function ClientLabel({ client }: { client: ClientInfo }) {
  const browser = client.browser ? `${client.browser}${client.browserVersion ? ` ${client.browserVersion}` : ''}` : null;
  const parts = [browser, client.os, client.deviceType].filter(Boolean);
  if (!parts.length) return null;
  return (
    <span className="muted" data-testid="client-label" title={client.sdkVersion ? `rtcscope SDK ${client.sdkVersion}` : undefined}>
      ({parts.join(' · ')})
    </span>
  );
}
