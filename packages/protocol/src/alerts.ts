import { type Static, Type } from '@sinclair/typebox';
import { Nullable, QueryTime, Time } from './schema-parts.js';

/** REST and live shapes of alert rules, webhook endpoints, notifications and deliveries (docs/alerts.md). */

const IssueType = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z-]+$',
  description: 'an issue type the diagnosis raises, e.g. downlink-loss',
});
const Percent = Type.Number({ minimum: 0, maximum: 100, description: 'percent' });

/** The window the fleet's conditions look back over. */
export const FLEET_WINDOW_S = 15 * 60;

export const CallScoreCondition = Type.Object(
  {
    kind: Type.Literal('call-score'),
    below: Type.Number({ minimum: 1, maximum: 5, description: "a participant's score (1–5) under this…" }),
    forS: Type.Integer({ minimum: 5, maximum: 3600, description: '…in every 5-s window for this many seconds' }),
  },
  { additionalProperties: false },
);
export const CallVerdictCondition = Type.Object(
  {
    kind: Type.Literal('call-verdict'),
    atLeast: Type.Union([Type.Literal('poor'), Type.Literal('fair')], {
      description: "a live call whose verdict so far is this or worse (the calls list's verdict)",
    }),
  },
  { additionalProperties: false },
);
export const CallIssueCondition = Type.Object({ kind: Type.Literal('call-issue'), issueType: IssueType }, { additionalProperties: false });
export const NeverConnectedCondition = Type.Object(
  {
    kind: Type.Literal('never-connected'),
    afterS: Type.Integer({ minimum: 5, maximum: 3600, description: 'a participant still not connected this long after joining' }),
  },
  { additionalProperties: false },
);
export const FleetIssueCondition = Type.Object(
  {
    kind: Type.Literal('fleet-issue-share'),
    issueType: IssueType,
    abovePct: Percent,
    minCalls: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'judged only when at least this many calls ran in the last 15 minutes',
    }),
  },
  { additionalProperties: false },
);
export const FleetSetupCondition = Type.Object(
  {
    kind: Type.Literal('fleet-setup-failures'),
    abovePct: Percent,
    minParticipants: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'judged only when at least this many participants joined in the last 15 minutes',
    }),
  },
  { additionalProperties: false },
);
export const PrecallFailingCondition = Type.Object(
  {
    kind: Type.Literal('precall-failing-share'),
    abovePct: Percent,
    minTests: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'judged only when at least this many pre-call tests were stored in the last 15 minutes',
    }),
  },
  { additionalProperties: false },
);
export const AlertCondition = Type.Union([
  CallVerdictCondition,
  CallScoreCondition,
  CallIssueCondition,
  NeverConnectedCondition,
  FleetIssueCondition,
  FleetSetupCondition,
  PrecallFailingCondition,
]);
export type AlertCondition = Static<typeof AlertCondition>;
export type AlertConditionKind = AlertCondition['kind'];

const Uuid = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });
const EndpointIds = Type.Union([Type.Array(Uuid, { maxItems: 50, uniqueItems: true }), Type.Null()], {
  description: "the webhook endpoints this rule's notifications go to (each must be the project's); null: every enabled one",
});

/** A rule's hysteresis: its condition must hold this long to fire and be clear this long to resolve. */
export const RULE_DEFAULTS = { fireAfterS: 0, resolveAfterS: 30, includeLab: false } as const;
const FireAfterS = Type.Integer({
  minimum: 0,
  maximum: 3600,
  default: RULE_DEFAULTS.fireAfterS,
  description: 'fires once its condition has held this many seconds without a break',
});
const ResolveAfterS = Type.Integer({
  minimum: 0,
  maximum: 3600,
  default: RULE_DEFAULTS.resolveAfterS,
  description: 'resolves once its condition has been clear this many seconds: a condition that comes and goes stays one alert',
});
const IncludeLab = Type.Boolean({
  default: RULE_DEFAULTS.includeLab,
  description: "judges the lab's calls too (metadata lab = true); without it, production's only",
});

export const AlertRuleInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    enabled: Type.Boolean(),
    condition: AlertCondition,
    endpointIds: Type.Optional(EndpointIds),
    fireAfterS: Type.Optional(FireAfterS),
    resolveAfterS: Type.Optional(ResolveAfterS),
    includeLab: Type.Optional(IncludeLab),
  },
  { additionalProperties: false },
);
export type AlertRuleInput = Static<typeof AlertRuleInput>;
export const AlertRule = Type.Object({
  id: Type.String(),
  name: AlertRuleInput.properties.name,
  enabled: Type.Boolean(),
  condition: AlertCondition,
  endpointIds: EndpointIds,
  fireAfterS: FireAfterS,
  resolveAfterS: ResolveAfterS,
  includeLab: IncludeLab,
  createdAt: Time,
  updatedAt: Time,
});
export type AlertRule = Static<typeof AlertRule>;
export const AlertRuleList = Type.Object({ rules: Type.Array(AlertRule) });
export type AlertRuleList = Static<typeof AlertRuleList>;

export const WebhookFormat = Type.Union([Type.Literal('json'), Type.Literal('slack')], {
  description: 'json: the documented payload; slack: a Slack incoming-webhook body',
});
export const WebhookEndpointInput = Type.Object(
  {
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://', description: 'http(s) URL the alerts are POSTed to' }),
    format: WebhookFormat,
    enabled: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type WebhookEndpointInput = Static<typeof WebhookEndpointInput>;
export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  ...WebhookEndpointInput.properties,
  secret: Type.String({ description: 'signs every delivery (docs/alerts.md: verifying a delivery)' }),
  createdAt: Time,
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;
export const WebhookEndpointList = Type.Object({ endpoints: Type.Array(WebhookEndpoint) });
export type WebhookEndpointList = Static<typeof WebhookEndpointList>;

export const NotificationState = Type.Union(
  [Type.Literal('firing'), Type.Literal('resolved'), Type.Literal('ended'), Type.Literal('test')],
  {
    description:
      'resolved: the condition cleared; ended: it stopped holding because its participant left or its call ended while it held (not a recovery)',
  },
);
export type NotificationState = Static<typeof NotificationState>;

/** One alert fired, resolved or ended, or a test: what the dashboard lists and every webhook carries. */
export const AlertNotification = Type.Object({
  id: Type.String({ description: 'unique per notification: a receiver that sees it twice ignores the second' }),
  state: NotificationState,
  at: Time,
  rule: Type.Object({ id: Type.String(), name: Type.String(), condition: AlertCondition }),
  alert: Type.Object({
    id: Type.String({ description: 'the same for its firing and its resolution' }),
    startedAt: Time,
    resolvedAt: Nullable(Time),
    callId: Type.Union([Type.String(), Type.Null()], { description: 'null for a fleet alert' }),
    participantId: Type.Union([Type.String(), Type.Null()]),
    summary: Type.String({ description: 'one line a person reads' }),
    value: Nullable(Type.Number()),
  }),
});
export type AlertNotification = Static<typeof AlertNotification>;
export const NotificationQuery = Type.Object(
  {
    before: Type.Optional(QueryTime('notifications before this time (paging)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type NotificationQuery = Static<typeof NotificationQuery>;
export const NotificationList = Type.Object({ notifications: Type.Array(AlertNotification) });
export type NotificationList = Static<typeof NotificationList>;

export const DeliveryAttempt = Type.Object({
  notificationId: Type.String(),
  state: NotificationState,
  rule: Type.String({ description: 'the name of the rule whose notification it is, as it was then' }),
  callId: Type.Union([Type.String(), Type.Null()], { description: "the alert's call; null for a fleet alert" }),
  participantId: Type.Union([Type.String(), Type.Null()]),
  attempt: Type.Integer({ description: '1 for the first try' }),
  at: Time,
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's HTTP status; null when it was not reached" }),
  durationMs: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  /** Where the delivery stands now: retried later, delivered, or given up after 24 hours. */
  delivery: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;
export const DeliveryLog = Type.Object({ attempts: Type.Array(DeliveryAttempt) });
export type DeliveryLog = Static<typeof DeliveryLog>;
