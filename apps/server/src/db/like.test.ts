import { describe, expect, it } from 'vitest';
import { likeLiteral } from './like.js';

describe('likeLiteral', () => {
  it("escapes LIKE's wildcards and its escape character, and nothing else", () => {
    expect(likeLiteral('a_b%c\\d')).toBe('a\\_b\\%c\\\\d');
    expect(likeLiteral('member.invited')).toBe('member.invited');
  });
});
