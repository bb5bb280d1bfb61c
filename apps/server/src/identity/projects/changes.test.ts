import { describe, expect, it } from 'vitest';
import { parseProjectChange } from './changes.js';

describe('parseProjectChange', () => {
  const projectId = '0b6f3c1e-52a4-4c1f-9d0e-3f1b2a7c9e10';

  it('reads the change an operator command announced', () => {
    expect(parseProjectChange(JSON.stringify({ projectId, deleted: true }))).toEqual({ projectId, deleted: true });
    expect(parseProjectChange(JSON.stringify({ projectId, deleted: false }))).toEqual({ projectId, deleted: false });
  });

  it('reads which node announced a change it had applied already', () => {
    expect(parseProjectChange(JSON.stringify({ projectId, deleted: false, origin: 'node-a' }))).toEqual({
      projectId,
      deleted: false,
      origin: 'node-a',
    });
  });

  it('ignores notices that are not such a change: anyone with the database can send one', () => {
    for (const payload of [
      '',
      'not json',
      'null',
      '[]',
      JSON.stringify({ projectId }),
      JSON.stringify({ projectId: 'acme', deleted: true }),
      JSON.stringify({ projectId: projectId.toUpperCase(), deleted: true }),
      JSON.stringify({ projectId, deleted: 'yes' }),
      JSON.stringify({ projectId, deleted: true, extra: 1 }),
      JSON.stringify({ projectId, deleted: true, origin: '' }),
      JSON.stringify({ projectId, deleted: true, origin: 7 }),
    ]) {
      expect(parseProjectChange(payload), payload).toBeNull();
    }
  });
});
