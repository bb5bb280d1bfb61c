import { afterEach, describe, expect, it } from 'vitest';
import { SfuEventsRelay } from './events-relay.js';

const relays: SfuEventsRelay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
});

async function open(stored = true) {
  const forwarded: unknown[] = [];
  const relay = await SfuEventsRelay.open(async (post) => {
    forwarded.push(post);
    return stored;
  });
  relays.push(relay);
  const post = (body: string, password = relay.target.apiKey) =>
    fetch(relay.target.url, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`rtcscope:${password}`).toString('base64')}` },
      body,
    }).then((r) => r.status);
  return { relay, forwarded, post };
}

describe('SfuEventsRelay', () => {
  it("hands on what Janus posts with the relay's own password, and answers 200 only once it was stored", async () => {
    const { relay, forwarded, post } = await open();
    expect(relay.target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await post('[{"type":1,"timestamp":1,"event":{}}]')).toBe(200);
    expect(forwarded).toEqual([[{ type: 1, timestamp: 1, event: {} }]]);

    const refused = await open(false);
    expect(await refused.post('{"type":1}')).toBe(502);
  });

  it('forwards nothing posted with another password, that is not JSON, or that is past 2 MB', async () => {
    const { forwarded, post } = await open();
    expect(await post('[]', 'guess')).toBe(401);
    expect(await post('not json')).toBe(400);
    expect(await post(`["${'x'.repeat(2 * 1024 * 1024)}"]`)).toBe(413);
    expect(forwarded).toEqual([]);
  });
});
