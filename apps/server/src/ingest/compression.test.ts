import { describe, expect, it } from 'vitest';
import { windowedOffers } from './compression.js';

describe('the extension offers compression takes', () => {
  it("keeps a permessage-deflate offer that lets the server set the client's window, as Chromium's", () => {
    expect(windowedOffers('permessage-deflate; client_max_window_bits')).toBe('permessage-deflate; client_max_window_bits');
    expect(windowedOffers('permessage-deflate;client_max_window_bits=12; server_no_context_takeover')).toBe(
      'permessage-deflate;client_max_window_bits=12; server_no_context_takeover',
    );
  });

  it("drops one that does not, as Firefox ESR's, and keeps the others of the header", () => {
    expect(windowedOffers('permessage-deflate')).toBeUndefined();
    expect(windowedOffers('permessage-deflate; server_max_window_bits=10')).toBeUndefined();
    expect(windowedOffers('permessage-deflate, permessage-deflate; client_max_window_bits')).toBe(
      'permessage-deflate; client_max_window_bits',
    );
    expect(windowedOffers('x-webkit-deflate-frame, permessage-deflate')).toBe('x-webkit-deflate-frame');
  });
});
