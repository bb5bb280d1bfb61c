import { describe, expect, it } from 'vitest';
import { formatSenderSettings, parseSenderSettings, type SenderSettings, toId } from './fields.js';

describe('sender settings', () => {
  const simulcast: SenderSettings = {
    kind: 'video',
    trackId: '5f0c-aa',
    contentHint: 'detail',
    encodings: [
      { rid: 'h', active: false, maxBitrate: 2_500_000, maxFramerate: null, scaleResolutionDownBy: 1 },
      { rid: 'l', active: true, maxBitrate: 150_000, maxFramerate: 15, scaleResolutionDownBy: 4 },
    ],
  };

  it('read back as written', () => {
    const detail = formatSenderSettings(simulcast);
    expect(detail).toBe(
      'local video 5f0c-aa hint=detail; rid=h active=0 maxBitrate=2500000 maxFramerate=- scale=1; rid=l active=1 maxBitrate=150000 maxFramerate=15 scale=4',
    );
    expect(parseSenderSettings(detail)).toEqual(simulcast);
  });

  it('refuse what is not one, and leave out values no encoding can hold', () => {
    expect(parseSenderSettings(null)).toBeNull();
    expect(parseSenderSettings('local video')).toBeNull();
    expect(parseSenderSettings('local video t hint=; rid=- active=yes maxBitrate=1')).toBeNull();
    expect(parseSenderSettings('local audio t hint=; rid=- active=1 maxBitrate=-5 maxFramerate=NaN scale=2')!.encodings).toEqual([
      { rid: null, active: true, maxBitrate: null, maxFramerate: null, scaleResolutionDownBy: 2 },
    ]);
  });
});

describe('toId', () => {
  it("makes an id of a name an app gives (a LiveKit room's, an identity), each run of other characters one '-'", () => {
    expect(toId('Team room #1')).toBe('Team-room-1');
    expect(toId('alice@example.com')).toBe('alice@example.com');
    expect(toId('Müller / Sales')).toBe('M-ller-Sales');
    expect(toId('x'.repeat(500)).length).toBeLessThan(500);
  });
});
