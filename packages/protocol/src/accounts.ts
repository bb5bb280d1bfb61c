import { type Static, Type } from '@sinclair/typebox';
import { QueryTime, Time } from './schema-parts.js';

/** People, organizations, roles, scoped API keys and the audit log (REST `/api/v1`). */

/** A member's role, least to most: each can do what the ones before it can. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));

/** What an API key may do: ingest (import recordings), read, lab (campaigns, agents), admin (keys, settings, alerts). */
export const SCOPES = ['ingest', 'read', 'lab', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));

/** Whether `role` may do what `need` may. */
export function roleAtLeast(role: Role, need: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(need);
}

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'an email address' });
export const PASSWORD_MIN = 10;
const Password = Type.String({ minLength: PASSWORD_MIN, maxLength: 256, description: `at least ${PASSWORD_MIN} characters` });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'not only spaces' });
/** A single-use link's token, as the link carried it. */
const LinkToken = Type.String({ minLength: 10, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' });

export const SignUp = Type.Object({ email: Email, password: Password, name: Name, organization: Name }, { additionalProperties: false });
export type SignUp = Static<typeof SignUp>;
export const SignIn = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export type SignIn = Static<typeof SignIn>;
/** The start command's one-time link, an invitation or a password reset, redeemed. */
export const LinkSignIn = Type.Object({ token: LinkToken }, { additionalProperties: false });
export type LinkSignIn = Static<typeof LinkSignIn>;
export const InvitationAccept = Type.Object(
  { token: LinkToken, name: Type.Optional(Name), password: Type.Optional(Password) },
  { additionalProperties: false },
);
export type InvitationAccept = Static<typeof InvitationAccept>;
export const PasswordResetRequest = Type.Object({ email: Email }, { additionalProperties: false });
export type PasswordResetRequest = Static<typeof PasswordResetRequest>;
export const PasswordReset = Type.Object({ token: LinkToken, password: Password }, { additionalProperties: false });
export type PasswordReset = Static<typeof PasswordReset>;
export const PasswordChange = Type.Object(
  { current: Type.String({ minLength: 1, maxLength: 256 }), password: Password },
  { additionalProperties: false },
);
export type PasswordChange = Static<typeof PasswordChange>;
export const SsoStart = Type.Object({ email: Email }, { additionalProperties: false });
export type SsoStart = Static<typeof SsoStart>;

/**
 * What a person may do in an organization and its projects, as the server's access policy decides it from
 * their role (`GET /auth/me` lists them per organization): the dashboard shows the controls of these, and
 * compares no role itself.
 */
export const ACTIONS = [
  'read',
  'import-recordings',
  'run-lab',
  'edit-alert-rules',
  'manage-webhooks',
  'manage-agents',
  'manage-project',
  'manage-keys',
  'manage-members',
  'manage-organization',
  'create-projects',
  'delete-projects',
  'delete-organization',
  'read-audit',
  'manage-sso',
] as const;
export type Action = (typeof ACTIONS)[number];
export const ActionSchema = Type.Union(ACTIONS.map((a) => Type.Literal(a)));

export const ProjectRef = Type.Object({ id: Type.String(), name: Type.String() });
export const OrganizationInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  projects: Type.Array(ProjectRef),
  can: Type.Array(ActionSchema, { description: 'what the person may do here (the access policy, from their role)' }),
});
export type OrganizationInfo = Static<typeof OrganizationInfo>;
export const Me = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), hasPassword: Type.Boolean() }),
  organizations: Type.Array(OrganizationInfo),
  /** Sent back as `x-csrf-token` on every request that changes something. */
  csrfToken: Type.String(),
});
export type Me = Static<typeof Me>;

export const SessionInfo = Type.Object({
  id: Type.Integer(),
  createdAt: Time,
  lastSeenAt: Time,
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  current: Type.Boolean(),
});
export type SessionInfo = Static<typeof SessionInfo>;
export const SessionList = Type.Object({ sessions: Type.Array(SessionInfo) });
export type SessionList = Static<typeof SessionList>;

export const OrganizationCreate = Type.Object({ name: Name }, { additionalProperties: false });
export type OrganizationCreate = Static<typeof OrganizationCreate>;
export const ProjectCreate = Type.Object({ name: Name }, { additionalProperties: false });
export type ProjectCreate = Static<typeof ProjectCreate>;
export const ProjectCreated = Type.Object({
  project: ProjectRef,
  ingestKey: Type.String({ description: "the project's publishable ingest key, for the SDK" }),
});
export type ProjectCreated = Static<typeof ProjectCreated>;
export const DeleteConfirmation = Type.Object(
  { confirm: Type.String({ maxLength: 200, description: 'the name of what is deleted (the project, the organization), typed again' }) },
  { additionalProperties: false },
);
export type DeleteConfirmation = Static<typeof DeleteConfirmation>;

export const MemberInfo = Type.Object({
  userId: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  since: Time,
  canChange: Type.Boolean({ description: "the asker may change this member's role (and make a reset link for someone else)" }),
  canRemove: Type.Boolean({ description: 'the asker may remove this member, or leave, for themself (never the last owner)' }),
});
export type MemberInfo = Static<typeof MemberInfo>;
export const InvitationInfo = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: RoleSchema,
  createdAt: Time,
  expiresAt: Time,
});
export type InvitationInfo = Static<typeof InvitationInfo>;
export const MemberList = Type.Object({
  members: Type.Array(MemberInfo),
  invitations: Type.Array(InvitationInfo),
  assignable: Type.Array(RoleSchema, {
    description: 'the roles the asker may give, inviting or changing a member (only owners make owners)',
  }),
});
export type MemberList = Static<typeof MemberList>;
export const RoleChange = Type.Object({ role: RoleSchema }, { additionalProperties: false });
export type RoleChange = Static<typeof RoleChange>;
export const InvitationCreate = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });
export type InvitationCreate = Static<typeof InvitationCreate>;
export const InvitationCreated = Type.Object({
  invitation: InvitationInfo,
  mailed: Type.Boolean({ description: 'sent by mail; when false, `link` is the only way to it: pass it on' }),
  link: Type.Union([Type.String(), Type.Null()], { description: 'the single-use link, when it was not mailed' }),
});
export type InvitationCreated = Static<typeof InvitationCreated>;
/** What an invitation link opens, shown before it is accepted. */
export const InvitationPreview = Type.Object({
  organization: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  account: Type.Boolean({ description: 'the address has an account already' }),
});
export type InvitationPreview = Static<typeof InvitationPreview>;
export const ResetLink = Type.Object({ link: Type.String(), expiresAt: Time });
export type ResetLink = Static<typeof ResetLink>;

export const SsoConnection = Type.Object(
  {
    issuer: Type.String({ pattern: '^https?://', maxLength: 500 }),
    clientId: Type.String({ minLength: 1, maxLength: 500 }),
    clientSecret: Type.String({ minLength: 1, maxLength: 500 }),
    emailDomain: Type.String({
      minLength: 3,
      maxLength: 253,
      pattern: '^[a-z0-9.-]+\\.[a-z]{2,}$',
      description: 'lower case, e.g. example.com',
    }),
    defaultRole: Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')]),
  },
  { additionalProperties: false },
);
export type SsoConnection = Static<typeof SsoConnection>;
export const SsoConnectionInfo = Type.Object({
  connection: Type.Union([Type.Omit(SsoConnection, ['clientSecret']), Type.Null()]),
  redirectUri: Type.String({ description: "to register at the provider as this connection's redirect URI" }),
  domainProof: Type.Union(
    [
      Type.Object({
        record: Type.String({ description: 'the DNS name to publish a TXT record at, e.g. _rtcscope-challenge.example.com' }),
        value: Type.String({ description: "the TXT record's text" }),
        verifiedAt: Type.Union([Time, Type.Null()], {
          description: 'when the record was found; null: the domain signs nobody on until it is',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        'how the organization proves the email domain is its own (null: no connection); until then the connection signs nobody on, and does not keep another organization from proving the domain',
    },
  ),
});
export type SsoConnectionInfo = Static<typeof SsoConnectionInfo>;

export const AuditEvent = Type.Object({
  id: Type.Integer(),
  at: Time,
  actor: Type.Object({
    kind: Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('system')]),
    id: Type.Union([Type.String(), Type.Null()]),
    label: Type.String(),
  }),
  action: Type.String(),
  projectId: Type.Union([Type.String(), Type.Null()]),
  target: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Record(Type.String(), Type.Unknown()),
  ip: Type.Union([Type.String(), Type.Null()]),
});
export type AuditEvent = Static<typeof AuditEvent>;
export const AuditList = Type.Object({
  events: Type.Array(AuditEvent),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'pass as `before` for older events' }),
});
export type AuditList = Static<typeof AuditList>;
export const AuditQuery = Type.Object(
  {
    action: Type.Optional(Type.String({ maxLength: 100 })),
    actor: Type.Optional(Type.String({ maxLength: 254, description: "a person's email or a key's name" })),
    projectId: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'a project id' }),
    ),
    from: Type.Optional(QueryTime('events from this time')),
    to: Type.Optional(QueryTime('events before this time')),
    before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;
