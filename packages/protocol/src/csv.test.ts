import { describe, expect, it } from 'vitest';
import { toCsvText } from './csv.js';

describe('toCsvText', () => {
  it('writes a header and rows, quoting what needs it and leaving unknown values empty', () => {
    expect(toCsvText(['name', 'kbps (kbit/s)'], [['alice, "a"', 12.5], ['bob', null]])).toBe('name,kbps (kbit/s)\n"alice, ""a""",12.5\nbob,\n');
  });
});
