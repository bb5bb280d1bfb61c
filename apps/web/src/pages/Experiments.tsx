import type { AgentList, CampaignList } from '@rtcscope/experiments';
import { useCallback, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Agents } from '../components/Agents.js';
import { NewCampaign } from '../components/NewCampaign.js';
import { mayDo } from '../lib/auth.js';
import { ProgressBar, StatusBadge } from '../components/Progress.js';
import { ErrorBox, Listing } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { formatDateTime, timeZone } from '../lib/format.js';
import { useLabLive } from '../lib/lab.js';
import { useLoad } from '../lib/hooks.js';

/** The lab: agents, a form to start a campaign, and every campaign with its progress, live. */
export function Experiments() {
  const [selected, setSelected] = useState<number[]>([]);
  const navigate = useNavigate();

  const fetchCampaigns = useCallback(async () => (await apiGet<CampaignList>('/lab/campaigns')).campaigns, []);
  const fetchAgents = useCallback(async () => (await apiGet<AgentList>('/lab/agents')).agents, []);
  const { data: campaigns, error: campaignsError, reload: loadCampaigns } = useLoad(fetchCampaigns);
  const { data: agentList, error: agentsError, reload: loadAgents } = useLoad(fetchAgents);
  const error = campaignsError ?? agentsError;
  const load = useCallback(() => Promise.all([loadCampaigns(), loadAgents()]), [loadCampaigns, loadAgents]);
  // Progress (every few seconds per running run) moves campaigns' bars, not the agents list: asking
  // for agents would poll every node for connected sockets each time.
  useLabLive(load, loadCampaigns);

  const toggle = (id: number) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s.slice(-1), id]));

  return (
    <main>
      <div className="toolbar">
        <h1>Experiments</h1>
        <span className="muted">
          Scripted WebRTC calls on emulated links, run by lab agents. Times in {timeZone}.{' '}
          <Link to="/lab/calls">All lab calls by scenario</Link>
        </span>
      </div>
      {error && <ErrorBox error={error} onRetry={() => void load()} />}
      <Agents agents={agentList} onChanged={() => void load()} />
      {mayDo('run-lab') ? (
        <NewCampaign onStarted={(c) => void navigate(`/lab/campaigns/${c.campaign.id}`)} />
      ) : (
        <p className="muted">Members, admins and owners start campaigns; viewers see them.</p>
      )}
      <section className="panel">
        <div className="toolbar">
          <h2>Campaigns</h2>
          <button
            type="button"
            disabled={selected.length !== 2}
            onClick={() => void navigate(`/lab/compare?a=${selected[0]}&b=${selected[1]}`)}
          >
            Compare the 2 selected
          </button>
        </div>
        <Listing items={campaigns} error={null} what="campaigns" empty="No campaigns yet. Start one above.">
          {(campaigns) => (
            <table className="calls" data-testid="campaigns">
              <thead>
                <tr>
                  <th>Compare</th>
                  <th>Campaign</th>
                  <th>Scenario</th>
                  <th title="the factor every time of the scenario was run at; 1 = as written">Time scale</th>
                  <th>Created</th>
                  <th>State</th>
                  <th>Progress</th>
                  <th>Runs</th>
                </tr>
              </thead>
              <tbody>
                {campaigns.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`compare campaign ${c.id}`}
                        checked={selected.includes(c.id)}
                        onChange={() => toggle(c.id)}
                      />
                    </td>
                    <td>
                      <Link to={`/lab/campaigns/${c.id}`}>
                        #{c.id} {c.name}
                      </Link>
                    </td>
                    <td>{c.scenarioId}</td>
                    <td>×{c.timeScale}</td>
                    <td>{formatDateTime(c.createdAt)}</td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>
                      <ProgressBar fraction={c.progress} label={`campaign ${c.id} progress`} />
                    </td>
                    <td className="muted">
                      {Object.entries(c.counts)
                        .map(([s, n]) => `${n} ${s}`)
                        .join(', ')}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Listing>
      </section>
    </main>
  );
}
