import type { AgentCapabilities, AgentCreated, AgentInfo } from '@rtcscope/experiments';
import { useState } from 'react';
import { apiSend } from '../lib/api.js';
import { mayDo } from '../lib/auth.js';
import { formatDateTime } from '../lib/format.js';
import { useAction } from '../lib/hooks.js';
import { NameForm } from './NameForm.js';
import { Listing } from './Status.js';

/** The project's lab agents (null while they load), and a way to add one (its token is shown once, with the command to run). */
export function Agents({ agents: loaded, onChanged }: { agents: AgentInfo[] | null; onChanged: () => void }) {
  // Agents' tokens run code on lab hosts: admins make and revoke them.
  const admin = mayDo('manage-agents');
  const [created, setCreated] = useState<AgentCreated | null>(null);
  const { act, error } = useAction(onChanged);

  const add = (name: string) => act(async () => setCreated(await apiSend<AgentCreated>('POST', '/lab/agents', { name })));
  const revoke = async (a: AgentInfo) => {
    if (!window.confirm(`Revoke agent "${a.name}"? It disconnects, and a run it is running fails.`)) return;
    await act(() => apiSend('DELETE', `/lab/agents/${a.id}`));
  };
  const agents = loaded ?? [];
  const connected = agents.filter((a) => a.connected).length;

  return (
    <section className="panel" data-testid="agents">
      <h2>
        Lab agents <span className="unit">({connected} connected)</span>
      </h2>
      {agents.length > 0 && connected === 0 && <p className="warn">No agent is connected: queued runs wait until one connects.</p>}
      <Listing
        items={loaded}
        error={null}
        what="agents"
        empty="No agents yet. Runs wait in the queue until an agent takes them: add one below and start it on a host with Chromium."
      >
        {(agents) => (
          <table className="calls">
            <thead>
              <tr>
                <th>Agent</th>
                <th>State</th>
                <th>Host</th>
                <th>Emulation</th>
                <th>Browsers and SFU</th>
                <th>Calls at once</th>
                <th>Last seen</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={a.id}>
                  <td>{a.name}</td>
                  <td>
                    <span className={`badge ${a.connected ? 'live' : 'ended'}`}>{a.connected ? 'connected' : 'offline'}</span>
                  </td>
                  <td>{a.host ?? '–'}</td>
                  <td title={a.capabilities?.backends.join(', ')}>{a.capabilities?.backend ?? '–'}</td>
                  <td
                    title={[
                      a.capabilities?.chromium,
                      a.capabilities?.firefox,
                      a.capabilities?.sfu,
                      a.capabilities?.livekit,
                      a.capabilities?.cpuLimit,
                    ]
                      .filter(Boolean)
                      .join('; ')}
                  >
                    {browsersOf(a.capabilities)}
                  </td>
                  <td>{a.capabilities ? `${a.capabilities.maxConcurrentCalls} (${a.capabilities.cores} cores)` : '–'}</td>
                  <td title={a.lastSeenAt ? `last heard ${formatDateTime(a.lastSeenAt)}` : undefined}>
                    {a.connected ? 'now' : a.lastSeenAt ? formatDateTime(a.lastSeenAt) : 'never'}
                  </td>
                  <td>
                    {admin && (
                      <button type="button" className="link" onClick={() => void revoke(a)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Listing>
      {admin && <NameForm label="New agent name" placeholder="e.g. lab-host-1" maxLength={128} button="Add agent" onSubmit={add} />}
      {error && <p className="error-text">{error.message}</p>}
      {created && (
        <div className="token" data-testid="agent-token">
          Token for <b>{created.agent.name}</b>, shown only now. Start the agent on a host with this repository and Chromium:
          <pre>
            pnpm --silent lab agent --server {window.location.origin} --token {created.token}
          </pre>
        </div>
      )}
    </section>
  );
}

/** The browsers an agent can put participants in (Chromium always, Firefox where it runs), and its SFUs where they run. */
function browsersOf(caps: AgentCapabilities | null | undefined): string {
  if (!caps) return '–';
  const runs = (version: string | undefined) => version !== undefined && !version.startsWith('not runnable');
  return (
    [
      runs(caps.chromium) ? 'Chromium' : null,
      runs(caps.firefox) ? 'Firefox' : null,
      runs(caps.sfu) ? 'Janus SFU' : null,
      runs(caps.livekit) ? 'LiveKit SFU' : null,
    ]
      .filter(Boolean)
      .join(', ') || 'none'
  );
}
