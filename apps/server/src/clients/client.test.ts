import { describe, expect, it } from 'vitest';
import { browserLabel, clientOf } from './client.js';

describe('clientOf', () => {
  it('tells browser, major version, OS and device from real user agents', () => {
    const cases: [string, ReturnType<typeof clientOf>][] = [
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
        { browser: 'Microsoft Edge', browserVersion: '131', os: 'Windows', deviceType: 'desktop', sdkVersion: null, country: null },
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
        { browser: 'Firefox', browserVersion: '153', os: 'Linux', deviceType: 'desktop', sdkVersion: null, country: null },
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
        { browser: 'Safari', browserVersion: '17', os: 'iOS', deviceType: 'mobile', sdkVersion: null, country: null },
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        { browser: 'Chrome', browserVersion: '131', os: 'Android', deviceType: 'tablet', sdkVersion: null, country: null },
      ],
    ];
    for (const [userAgent, expected] of cases) expect(clientOf({ userAgent })).toEqual(expected);
  });

  it('takes the client hints where the user agent is reduced, the SDK version from the handshake, and a bare brand as it is', () => {
    const reduced = 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
    expect(clientOf({ userAgent: reduced, platformHint: '"Android"', mobileHint: '?1', sdk: 'rtcscope-sdk/0.1.0 wire/3' })).toEqual({
      browser: 'Chrome',
      browserVersion: '131',
      os: 'Android',
      deviceType: 'mobile',
      sdkVersion: '0.1.0',
      country: null,
    });
    expect(clientOf({ userAgent: 'Chromium/156' })).toMatchObject({ browser: 'Chromium', browserVersion: '156', os: null });
    expect(clientOf({})).toEqual({ browser: null, browserVersion: null, os: null, deviceType: null, sdkVersion: null, country: null });
    expect(browserLabel(clientOf({ userAgent: 'Chromium/156' }))).toBe('Chromium 156');
    expect(browserLabel(clientOf({}))).toBeNull();
  });

  it('tells the country of a public IPv4 address, and none of a private, loopback, IPv6 or malformed one', () => {
    expect(clientOf({ address: '8.8.8.8' }).country).toBe('US');
    expect(clientOf({ address: '81.2.69.142' }).country).toBe('GB');
    expect(clientOf({ address: '::ffff:81.2.69.142' }).country).toBe('GB');
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.7', '::1', '2a00:1450:4001::1', 'not an address', '']) {
      expect(clientOf({ address }).country, address).toBeNull();
    }
  });
});
