import type { PrecallDetail } from '@rtcscope/protocol';
import { useCallback } from 'react';
import { Link, useParams } from 'react-router';
import { PrecallReport } from '../components/PrecallReport.js';
import { ErrorBox, Loading } from '../components/Status.js';
import { apiGet } from '../lib/api.js';
import { formatDateTime } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

/** One pre-call test: its report, and the call its samples made (judged like any call). */
export function PrecallTest() {
  const { callId = '' } = useParams();
  const fetchTest = useCallback(async () => (await apiGet<PrecallDetail>(`/precall-tests/${encodeURIComponent(callId)}`)).test, [callId]);
  const { data: test, error, reload } = useLoad(fetchTest);
  return (
    <main>
      <div className="toolbar">
        <h1>Pre-call test {test?.ticket ? `for ${test.ticket}` : ''}</h1>
        <Link to="/precall">All tests</Link>
      </div>
      {error && <ErrorBox error={error} onRetry={() => void reload()} />}
      {!test && !error && <Loading what="the test" />}
      {test && (
        <>
          <p className="muted">
            {formatDateTime(test.createdAt)}, {[test.browser, test.os, test.country].filter(Boolean).join(', ') || 'client unknown'} —{' '}
            {test.report.media ? (
              <Link to={`/calls/${encodeURIComponent(test.callId)}`}>its samples, issues and scores as a call</Link>
            ) : (
              'no media went through, so there are no samples'
            )}
          </p>
          <PrecallReport report={test.report} />
        </>
      )}
    </main>
  );
}
