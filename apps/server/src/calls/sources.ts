import type { CallSource } from '@rtcscope/protocol';

// Where a call came from, as SQL on the call `c`: production's live traffic, the lab's runs, imported
// recordings. The lab's calls say so in their metadata (`lab: true`, set by the lab's runner); they are
// kept out of what a person reads as production everywhere (insights, alerts, the calls list's `live`).

/** A call the lab ran. */
const LAB = "coalesce(c.metadata ->> 'lab' = 'true', false)";
const RECORDED_HERE = "c.imported_at IS NULL AND c.kind = 'call'";

/** Which calls a source takes. */
export const SOURCE_FILTER: Record<CallSource, string> = {
  live: `${RECORDED_HERE} AND NOT ${LAB}`,
  lab: `${RECORDED_HERE} AND ${LAB}`,
  imported: 'c.imported_at IS NOT NULL',
  all: "c.kind = 'call'",
};

/** The calls an alert rule `r` judges: those recorded here, the lab's only when the rule asks for them. */
export const RULE_CALLS = `${RECORDED_HERE} AND (r.include_lab OR NOT ${LAB})`;
