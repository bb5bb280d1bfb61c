import { type NodeProcess, startNodeProcess } from '@rtcscope/server/testing';

/** Runs a lab agent as a person would (`pnpm lab agent …`) and waits until the server accepted it. */
export function startAgent(server: string, token: string, name = 'e2e-agent'): Promise<NodeProcess> {
  return startNodeProcess({
    entry: 'apps/lab/src/cli.ts',
    args: ['agent', '--server', server, '--token', token, '--name', name],
    env: {},
    ready: /connected to \S+ as/,
  });
}
