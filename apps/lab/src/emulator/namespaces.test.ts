import { execFileSync, spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { namespaceName, removeOrphans } from './namespaces.js';
import { probeHost } from './probe.js';

const list = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const made: string[] = [];

/** A namespace as a lab process that was killed mid-run leaves it: named for a pid that no longer runs. */
function orphan(tag: string): string {
  const { pid } = spawnSync('true');
  const name = `rts-${pid}-${tag}`;
  execFileSync('ip', ['netns', 'add', name]);
  made.push(name);
  return name;
}

afterEach(() => {
  for (const name of made.splice(0)) if (list().includes(name)) execFileSync('ip', ['netns', 'delete', name]);
});

describe.skipIf(userInfo().uid !== 0)('removeOrphans', () => {
  it('deletes the namespaces of lab processes that are gone, and keeps those of live ones', async () => {
    const dead = orphan('probe');
    const live = namespaceName('kept');
    execFileSync('ip', ['netns', 'add', live]);
    made.push(live);
    await removeOrphans();
    expect(list()).not.toContain(dead);
    expect(list()).toContain(live);
  });

  it('runs before the host probe, so an agent killed mid-probe leaves nothing for the next', { timeout: 30_000 }, async () => {
    const dead = orphan('probe');
    await probeHost();
    expect(list()).not.toContain(dead);
  });
});
