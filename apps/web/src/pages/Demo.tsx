import type { ProjectInfo } from '@rtcscope/protocol';
import { createMonitor, type Monitor } from '@rtcscope/sdk';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ErrorBox } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { type LoopbackCall, startLoopbackCall } from '../lib/loopback.js';

interface Running {
  callId: string;
  call: LoopbackCall;
  monitors: Monitor[];
}

/** Starts a monitored loopback call in this browser so a newcomer sees a live call within a minute. */
export function Demo() {
  const [running, setRunning] = useState<Running | null>(null);
  const { act, busy: starting, error } = useAction();
  const video = useRef<HTMLVideoElement>(null);
  const runningRef = useRef<Running | null>(null);

  useEffect(() => () => void stop(runningRef.current), []);

  const start = () =>
    act(async () => {
      const project = await apiGet<ProjectInfo>('/project');
      const callId = `demo-${new Date().toISOString().slice(11, 19).replaceAll(':', '')}-${Math.random().toString(36).slice(2, 6)}`;
      const call = await startLoopbackCall();
      const monitors = (['alice', 'bob'] as const).map((participantId, k) => {
        const m = createMonitor({
          server: window.location.origin,
          ingestKey: project.ingestKey,
          callId,
          participantId,
          metadata: { demo: true },
        });
        m.addPeerConnection(k === 0 ? call.caller : call.callee);
        return m;
      });
      const r = { callId, call, monitors };
      runningRef.current = r;
      setRunning(r);
      const stream = await call.remoteStream;
      if (video.current) {
        video.current.srcObject = stream;
        await video.current.play().catch(() => {});
      }
    });

  async function stop(r: Running | null) {
    if (!r) return;
    runningRef.current = null;
    setRunning(null);
    await Promise.all(r.monitors.map((m) => m.close()));
    r.call.stop();
  }

  return (
    <main>
      <div className="toolbar">
        <h1>Demo call</h1>
      </div>
      <p>
        Starts a WebRTC call between two peer connections in this tab (a drawn video and a tone, no camera needed), monitored by the
        rtcscope SDK as participants <b>alice</b> and <b>bob</b>. Open it on the dashboard to watch its charts fill live.
      </p>
      {error && <ErrorBox error={error} />}
      {!running ? (
        <button type="button" className="primary" onClick={() => void start()} disabled={starting} data-testid="demo-start">
          {starting ? 'Starting…' : 'Start demo call'}
        </button>
      ) : (
        <div className="demo">
          <p>
            Call <b data-testid="demo-call-id">{running.callId}</b> is running.{' '}
            <Link to={`/calls/${running.callId}`} target="_blank">
              Open it on the dashboard ↗
            </Link>
          </p>
          <button type="button" onClick={() => void stop(running)} data-testid="demo-stop">
            Stop the call
          </button>
        </div>
      )}
      <video ref={video} muted playsInline className="demo-video" hidden={!running} />
    </main>
  );
}
