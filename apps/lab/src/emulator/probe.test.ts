import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { namespaceName } from './namespaces.js';
import { BACKENDS, chooseBackend, probeHost } from './probe.js';

describe('probeHost', () => {
  it('reports what the host allows and leaves no namespace behind', { timeout: 30_000 }, async () => {
    const caps = await probeHost();
    expect(typeof caps.netem).toBe('boolean');
    if (userInfo().uid !== 0) {
      expect(caps.netns).toBe(false);
      expect(caps.notes.join(' ')).toMatch(/CAP_NET_ADMIN/);
      return;
    }
    if (caps.netns) {
      expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(namespaceName('probe'));
      // Every qdisc that failed says why, in tc's words.
      for (const q of ['netem', 'tbf', 'htb'] as const) if (!caps[q]) expect(caps.notes.some((n) => n.startsWith(`tc ${q}:`))).toBe(true);
    }
  });
});

describe('chooseBackend', () => {
  it('takes the kernel for rate where namespaces and tbf exist, and says why', () => {
    const none = { netns: false, netem: false, tbf: false, htb: false, notes: [] };
    expect(chooseBackend(none)).toMatchObject({ backend: BACKENDS.relay, why: expect.stringMatching(/no network namespaces/) });
    expect(chooseBackend({ ...none, netns: true })).toMatchObject({ backend: BACKENDS.relay, why: expect.stringMatching(/no tbf/) });
    expect(chooseBackend({ ...none, netns: true, tbf: true })).toMatchObject({
      backend: BACKENDS.kernel,
      why: expect.stringMatching(/no netem/),
    });
    expect(chooseBackend({ ...none, netns: true, tbf: true, netem: true }).why).toMatch(/netem is available/);
  });
});
