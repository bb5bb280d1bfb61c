import { DETECTORS } from '@rtcscope/diagnosis';
import type { AlertCondition, AlertConditionKind } from '@rtcscope/protocol';
import { issueName } from './diagnosis.js';

/** The issue types a rule may name, as the diagnosis raises them. */
export const ISSUE_TYPES: readonly string[] = DETECTORS.map((d) => d.type).sort();

export const CONDITION_KINDS: Record<AlertConditionKind, string> = {
  'call-verdict': 'A call is judged poor (or fair)',
  'call-issue': 'A call raises an issue',
  'call-score': "A participant's score stays low",
  'never-connected': 'A participant never connects',
  'fleet-issue-share': 'Many calls have an issue (fleet)',
  'fleet-setup-failures': 'Many participants fail to connect (fleet)',
  'precall-failing-share': 'Many pre-call tests fail (fleet)',
};

/** A new condition of a kind, with values a person would start from. */
export function defaultCondition(kind: AlertConditionKind): AlertCondition {
  switch (kind) {
    case 'call-verdict':
      return { kind, atLeast: 'poor' };
    case 'call-issue':
      return { kind, issueType: 'downlink-loss' };
    case 'call-score':
      return { kind, below: 3, forS: 30 };
    case 'never-connected':
      return { kind, afterS: 30 };
    case 'fleet-issue-share':
      return { kind, issueType: 'downlink-loss', abovePct: 20, minCalls: 10 };
    case 'fleet-setup-failures':
      return { kind, abovePct: 10, minParticipants: 20 };
    case 'precall-failing-share':
      return { kind, abovePct: 20, minTests: 10 };
  }
}

/** The condition in one sentence. */
export function describeCondition(c: AlertCondition): string {
  switch (c.kind) {
    case 'call-verdict':
      return `a live call is judged ${c.atLeast === 'poor' ? 'poor' : 'fair or poor'}`;
    case 'call-issue':
      return `a live call raises ${issueName(c.issueType).toLowerCase()}`;
    case 'call-score':
      return `a participant scores under ${c.below} for ${c.forS} s`;
    case 'never-connected':
      return `a participant has not connected ${c.afterS} s after joining`;
    case 'fleet-issue-share':
      return `over ${c.abovePct} % of the last 15 minutes' calls have ${issueName(c.issueType).toLowerCase()} (at least ${c.minCalls} calls)`;
    case 'fleet-setup-failures':
      return `over ${c.abovePct} % of participants who joined in the last 15 minutes never connected (at least ${c.minParticipants})`;
    case 'precall-failing-share':
      return `over ${c.abovePct} % of the last 15 minutes' pre-call tests failed (at least ${c.minTests} tests)`;
  }
}
