import type { CallIssue } from '@rtcscope/protocol';
import { describe, expect, it } from 'vitest';
import { stackIssues } from './IssueLanes.js';

const issue = (id: number, start: number, end: number | null) => ({ id, start, end }) as CallIssue;

describe('issue lanes', () => {
  it('put overlapping issues of a participant in rows of their own, and reuse a row once it is free', () => {
    const rows = stackIssues([issue(1, 0, 10), issue(2, 5, 20), issue(3, 12, null), issue(4, 21, 30)], 40).map((s) => [s.issue.id, s.row]);
    expect(rows).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
      [4, 1],
    ]);
  });
});
