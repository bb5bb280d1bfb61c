import type { AlertConditionKind } from '@rtcscope/protocol';
import { callIssue } from './call-issue.js';
import { callScore } from './call-score.js';
import { callVerdict } from './call-verdict.js';
import type { Condition } from './condition.js';
import { fleetIssueShare } from './fleet-issue-share.js';
import { fleetSetupFailures } from './fleet-setup-failures.js';
import { neverConnected } from './never-connected.js';
import { precallFailingShare } from './precall-failing-share.js';

/** Every kind of condition a rule may have. */
export const CONDITIONS: Record<AlertConditionKind, Condition> = {
  'call-verdict': callVerdict as Condition,
  'call-score': callScore as Condition,
  'call-issue': callIssue as Condition,
  'never-connected': neverConnected as Condition,
  'fleet-issue-share': fleetIssueShare as Condition,
  'fleet-setup-failures': fleetSetupFailures as Condition,
  'precall-failing-share': precallFailingShare as Condition,
};
