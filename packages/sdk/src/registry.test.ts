import { describe, expect, it } from 'vitest';
import { DescriptorRegistry } from './registry.js';

describe('DescriptorRegistry', () => {
  it("declares a stream again with the app's name for its track, and only streams of that track", () => {
    const registry = new DescriptorRegistry();
    const conn = registry.connection('subscribe');
    const copy = { direction: 'in' as const, kind: 'video' as const, ssrc: 7001, trackId: 'janus1' };
    const other = { direction: 'in' as const, kind: 'video' as const, ssrc: 7002, trackId: 'janus3' };
    const i = registry.stream(conn, 'in:video:7001', copy);
    registry.stream(conn, 'in:video:7002', other);
    registry.markSent(registry.unsent().keys);

    // Janus names a subscriber's copy janus<mid>; the app says which published track it is.
    registry.nameTrack('janus1', 'janus:42:2:1');
    expect(registry.stream(conn, 'in:video:7001', copy)).toBe(i);
    registry.stream(conn, 'in:video:7002', other);
    expect(registry.unsent().streams).toEqual([{ i, conn, ...copy, trackId: 'janus:42:2:1' }]);
  });
});
