import { type Static, Type } from '@sinclair/typebox';
import { Time } from './schema-parts.js';

/**
 * A TURN or STUN server as an RTCIceServer names it (RFC 7064, 7065): `turn:host[:port]`, `turns:` for
 * TLS, with `?transport=udp|tcp`.
 */
export const IceServerUrl = Type.String({
  pattern: '^(stun|turns?):[^\\s?/]+(\\?transport=(udp|tcp))?$',
  maxLength: 256,
  description:
    'a TURN or STUN server URL: turn:host[:port][?transport=udp|tcp], turns: for TLS, stun:host[:port] (e.g. turn:turn.example.com:3478?transport=udp)',
});

/** Seconds the credentials handed out for the project's TURN servers stay good. */
const TurnTtlS = Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 });

/**
 * The project's TURN servers and the secret they share with rtcscope (coturn's `static-auth-secret` with
 * `use-auth-secret`): the SDK and the pre-call test are handed time-limited credentials signed with it.
 */
export const TurnSettings = Type.Object(
  {
    urls: Type.Array(IceServerUrl, { minItems: 1, maxItems: 10, uniqueItems: true }),
    secret: Type.String({ minLength: 16, maxLength: 256, description: "the TURN server's shared secret; never shown again" }),
    ttlS: Type.Optional(TurnTtlS),
  },
  { additionalProperties: false },
);
export type TurnSettings = Static<typeof TurnSettings>;

/** The project's TURN servers as the API shows them: never the secret. */
export const TurnSettingsInfo = Type.Object({
  turn: Type.Union([Type.Object({ urls: Type.Array(Type.String()), ttlS: Type.Integer(), updatedAt: Time }), Type.Null()], {
    description: 'null: none set (the pre-call test then tries STUN and direct paths only)',
  }),
});
export type TurnSettingsInfo = Static<typeof TurnSettingsInfo>;

/** An RTCIceServer as a browser takes it: TURN with a user name and a password that expire. */
export const IceServer = Type.Object({
  urls: Type.Array(Type.String()),
  username: Type.Optional(Type.String()),
  credential: Type.Optional(Type.String()),
});
export type IceServer = Static<typeof IceServer>;

/**
 * The answer to an SDK's `iceServers` request on `/ingest`: the project's TURN servers with credentials
 * good until `expiresAt` (none when the project set none), or why not.
 */
export type IceServersAnswer = { ok: true; iceServers: IceServer[]; expiresAt: number | null } | { ok: false; error: string };
