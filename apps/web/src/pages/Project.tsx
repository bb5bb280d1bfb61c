import type { ProjectInfo } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { ApiKeys } from '../components/ApiKeys.js';
import { TurnServers } from '../components/TurnServers.js';
import { LiveKitWebhooks } from '../components/LiveKitWebhooks.js';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiGet, apiSend } from '../lib/api.js';
import { mayDo } from '../lib/auth.js';
import { useAction, useLoad } from '../lib/hooks.js';

const TIERS = [7, 30, 90, 365] as const;

/** The project: its publishable ingest key, how to monitor a page, how long its data is kept, its API keys and TURN servers. */
export function Project() {
  const fetchProject = useCallback(() => apiGet<ProjectInfo>('/project'), []);
  const { data: project, error: loadError, reload: load, setData: setProject } = useLoad(fetchProject);
  const { act, busy: saving, error: actionError } = useAction();
  const error = actionError ?? loadError;
  const [saved, setSaved] = useState<string | null>(null);

  const setRetention = (retentionDays: ProjectInfo['retentionDays']) =>
    act(async () => {
      setProject(await apiSend<ProjectInfo>('PATCH', '/project', { retentionDays }));
      setSaved(`Streams that start from now on keep their raw samples ${retentionDays} days.`);
    });

  const replaceIngestKey = async () => {
    const question =
      'Replace the ingest key? Pages and SDKs using the current one stop being monitored at once, until they use the new one.';
    if (!window.confirm(question)) return;
    await act(async () => {
      setProject(await apiSend<ProjectInfo>('POST', '/project/ingest-key'));
      setSaved(null);
    });
  };

  if (error && !project)
    return (
      <main>
        <ErrorBox error={error} onRetry={() => void load()} />
      </main>
    );
  if (!project)
    return (
      <main>
        <Loading what="the project" />
      </main>
    );
  const origin = window.location.origin;
  const admin = mayDo('manage-project');
  return (
    <main>
      <div className="toolbar">
        <h1>{project.name}</h1>
      </div>
      {error && <ErrorBox error={error} />}
      <section className="panel">
        <h2>Monitor a call</h2>
        <p>
          Ingest key (publishable: it can only write samples): <code data-testid="ingest-key">{project.ingestKey}</code>{' '}
          {admin && (
            <button type="button" className="link" onClick={() => void replaceIngestKey()} data-testid="replace-ingest-key">
              Replace…
            </button>
          )}
        </p>
        <pre className="snippet">{`<script src="${origin}/sdk/rtcscope.js"></script>
<script>RtcScope.createMonitor({ server: '${origin}', ingestKey: '${project.ingestKey}', callId: 'my-call', participantId: 'alice' }).addPeerConnection(pc);</script>`}</pre>
        <p className="muted" data-testid="ingest-limit">
          {project.ingestLimit === null
            ? 'No ingest limit is set on this server.'
            : `Ingest limit: ${project.ingestLimit.toLocaleString()} samples a second per server, averaged over 10 s (a participant sending and receiving audio and video sends 5 a second). Over it, the SDK keeps the samples and sends them again; the operator can raise the limit.`}
        </p>
      </section>
      <section className="panel">
        <h2>Data retention</h2>
        <p>
          Raw 1-second samples are kept for the days chosen here; 10-second summaries of ended calls four times as long (at most two years);
          calls, participants and their means stay listed. Expired days are removed whole, once an hour. A change applies to streams that
          start after it.
        </p>
        <label>
          Keep raw samples for{' '}
          <select
            value={project.retentionDays}
            disabled={saving || !admin}
            onChange={(e) => void setRetention(Number(e.target.value) as ProjectInfo['retentionDays'])}
            data-testid="retention"
          >
            {TIERS.map((d) => (
              <option key={d} value={d}>
                {d} days
              </option>
            ))}
          </select>
        </label>
        {saved && <p className="muted">{saved}</p>}
        {!admin && <p className="muted">Admins and owners change it, and the keys.</p>}
      </section>
      {admin && <ApiKeys />}
      {admin && <TurnServers />}
      {admin && <LiveKitWebhooks />}
    </main>
  );
}
