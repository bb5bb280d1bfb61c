import type { PrecallRecipient } from '@rtcscope/protocol';
import { type PrecallProgress, type PrecallResult, runPrecallTest } from '@rtcscope/sdk/precall';
import { useEffect, useState } from 'react';
import { ProgressBar } from '../components/Progress.js';
import { PrecallReport } from '../components/PrecallReport.js';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiSend } from '../lib/api.js';

/**
 * The test page a support engineer sends a customer: the link carries the project's publishable
 * ingest key and, if given, a ticket reference. No sign-in: it names whose project the result goes to
 * (a link can carry anyone's key), runs the pre-call test in the customer's browser, shows what it
 * found, and sends the result to the project.
 */
export function HostedTest() {
  const query = new URLSearchParams(window.location.search);
  const key = query.get('key');
  const ticket = query.get('ticket')?.slice(0, 128) || undefined;
  const [progress, setProgress] = useState<PrecallProgress | null>(null);
  const [result, setResult] = useState<PrecallResult | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [recipient, setRecipient] = useState<PrecallRecipient | Error | null>(null);

  useEffect(() => {
    if (!key) return;
    apiSend<PrecallRecipient>('POST', '/hosted-test/recipient', { ingestKey: key }).then(setRecipient, (err: Error) => setRecipient(err));
  }, [key]);

  const start = async () => {
    setResult(null);
    setError(null);
    setProgress({ step: 'devices', done: 0, message: 'Starting' });
    try {
      setResult(
        await runPrecallTest({ server: window.location.origin, ingestKey: key!, ...(ticket ? { ticket } : {}), onProgress: setProgress }),
      );
    } catch (err) {
      setError(err as Error);
    } finally {
      setProgress(null);
    }
  };

  return (
    <main className="hosted-test">
      <h1>Test your camera, microphone and network</h1>
      {!key ? (
        <ErrorBox error={new Error('This link has no project key: ask whoever sent it for a new link.')} />
      ) : recipient === null ? (
        <Loading what="whose test this is" />
      ) : recipient instanceof Error ? (
        <ErrorBox error={recipient} />
      ) : (
        <>
          <p>
            This checks, in about half a minute, that a video call will work from this browser: your camera and microphone (the browser asks
            for them), and how well your network reaches the call servers. Nothing is recorded; the figures go to{' '}
            <b data-testid="precall-recipient">{recipient.organization}</b> (their project {recipient.project})
            {ticket ? (
              <>
                {' '}
                with reference <b data-testid="ticket">{ticket}</b>
              </>
            ) : null}
            .
          </p>
          <button type="button" className="primary" onClick={() => void start()} disabled={progress !== null} data-testid="precall-start">
            {progress ? 'Testing…' : result ? 'Test again' : 'Start the test'}
          </button>
          {progress && (
            <p data-testid="precall-progress">
              <ProgressBar fraction={progress.done} label="Test progress" /> {progress.message}…
            </p>
          )}
          {error && <ErrorBox error={error} />}
          {result && (
            <>
              <PrecallReport report={result} />
              <p className="muted" data-testid="precall-sent">
                {result.stored
                  ? `The result was sent to ${recipient.organization} (test ${result.testId}${ticket ? `, reference ${ticket}` : ''}).`
                  : `The result could not be sent (${result.storeError ?? 'no answer'}): tell whoever sent the link what you see above.`}
              </p>
            </>
          )}
        </>
      )}
    </main>
  );
}
