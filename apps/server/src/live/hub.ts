import type { AlertNotification, LabChanged, LabProgress, LiveDiagnosis, LivePoints, LiveSubscribe } from '@rtcscope/protocol';
import type { Server, Socket } from 'socket.io';
import type { BatchOrigin, Committed } from '../samples/write.js';
import { type LiveNamespace, RoomInterest } from './interest.js';

const callsRoom = (projectId: string) => `p:${projectId}:calls`;
const callRoom = (projectId: string, callId: string) => `p:${projectId}:call:${callId}`;
const labRoom = (projectId: string) => `p:${projectId}:lab`;
const alertsRoom = (projectId: string) => `p:${projectId}:alerts`;

/**
 * socket.io `/live`: dashboards authenticate (an API key, or a person's session naming a project) and
 * subscribe to their project's calls list or to one call. Rooms carry the project id, so a dashboard
 * only ever hears the project it was let into.
 */
/** A calls list needs to know a call is alive, not every batch of it. */
const ACTIVITY_EVERY_MS = 5000;

export class LiveHub {
  private readonly ns: LiveNamespace;
  private readonly lastActivity = new Map<string, number>();
  private readonly interest: RoomInterest;

  /** `clustered`: other nodes share the rooms through the adapter. */
  /** `authorize`: the project a socket's handshake lets it watch, or null. */
  constructor(
    io: Server,
    private readonly authorize: (handshake: Socket['handshake']) => Promise<string | null>,
    clustered: boolean,
  ) {
    this.ns = io.of('/live') as LiveNamespace;
    this.interest = new RoomInterest(this.ns, clustered);
    this.ns.use((socket, next) => {
      this.authorize(socket.handshake)
        .then((projectId) => {
          if (!projectId)
            return next(Object.assign(new Error('sign in, or give an API key with the read scope'), { data: { status: 401 } }));
          socket.data.projectId = projectId;
          next();
        })
        .catch(() => next(Object.assign(new Error('cannot check who you are now'), { data: { status: 503 } })));
    });
    this.ns.on('connection', (socket) => {
      const projectId = socket.data.projectId as string;
      socket.on('subscribe', (msg: LiveSubscribe, ack?: (r: { ok: boolean }) => void) => {
        const rooms = [
          ...(msg?.calls ? [callsRoom(projectId)] : []),
          ...(msg?.lab ? [labRoom(projectId)] : []),
          ...(msg?.alerts ? [alertsRoom(projectId)] : []),
          ...(typeof msg?.callId === 'string' ? [callRoom(projectId, msg.callId)] : []),
        ];
        void socket.join(rooms);
        void Promise.all(rooms.map((room) => this.interest.joined(room))).then(() => ack?.({ ok: true }));
      });
      socket.on('unsubscribe', (msg: LiveSubscribe) => {
        if (msg?.calls) void socket.leave(callsRoom(projectId));
        if (msg?.lab) void socket.leave(labRoom(projectId));
        if (msg?.alerts) void socket.leave(alertsRoom(projectId));
        if (typeof msg?.callId === 'string') void socket.leave(callRoom(projectId, msg.callId));
      });
    });
  }

  /** Ends the project's dashboards it no longer lets in (a key revoked, a member removed, the project deleted). */
  async recheck(projectId: string): Promise<void> {
    for (const socket of this.ns.sockets.values()) {
      if (socket.data.projectId !== projectId) continue;
      if ((await this.authorize(socket.handshake)) !== projectId) socket.disconnect();
    }
  }

  publishBatch(session: BatchOrigin, c: Committed): void {
    const { projectId, handshake } = session;
    const room = callRoom(projectId, handshake.callId);
    if (this.interest.watched(room)) this.ns.to(room).emit('points', livePoints(session, c));
    if (c.callCreated || c.participantJoined || c.left) this.callsChanged(projectId, handshake.callId);
    else this.activity(projectId, handshake.callId);
  }

  /** Whether a dashboard (on any node) has this call's page open. */
  callWatched(projectId: string, callId: string): boolean {
    return this.interest.watched(callRoom(projectId, callId));
  }

  /** A watched call's diagnosis changed: its page shows the issue or score at once. */
  diagnosis(projectId: string, change: LiveDiagnosis): void {
    const room = callRoom(projectId, change.callId);
    if (this.interest.watched(room)) this.ns.to(room).emit('diagnosis', change);
  }

  private activity(projectId: string, callId: string): void {
    if (!this.interest.watched(callsRoom(projectId))) return;
    const key = `${projectId}:${callId}`;
    const now = Date.now();
    if (now - (this.lastActivity.get(key) ?? 0) < ACTIVITY_EVERY_MS) return;
    if (this.lastActivity.size > 100_000) this.lastActivity.clear();
    this.lastActivity.set(key, now);
    this.ns.to(callsRoom(projectId)).emit('activity', { callId, lastSeenAt: now });
  }

  callsChanged(projectId: string, callId: string): void {
    this.ns.to(callsRoom(projectId)).emit('calls-changed', { callId });
    this.ns.to(callRoom(projectId, callId)).emit('call-changed', { callId });
  }

  /** Campaigns, runs or agents changed: lab pages reload what they show. */
  labChanged(projectId: string, change: LabChanged): void {
    this.ns.to(labRoom(projectId)).emit('lab-changed', change);
  }

  labProgress(projectId: string, progress: LabProgress): void {
    this.ns.to(labRoom(projectId)).emit('lab-progress', progress);
  }

  /** An alert fired or resolved, or a test was sent: the notification lists show it at once. */
  notification(projectId: string, notification: AlertNotification): void {
    this.ns.to(alertsRoom(projectId)).emit('notification', notification);
  }

  close(): void {
    this.interest.close();
  }
}

function livePoints({ handshake }: BatchOrigin, c: Committed): LivePoints {
  return {
    callId: handshake.callId,
    participantId: handshake.participantId,
    streams: c.streamRows.map((r) => ({ id: r.index, ts: r.ts, v: r.values })),
    connections: c.connectionRows.map((r) => ({ id: r.index, ts: r.ts, v: r.values })),
    newStreams: c.newStreams,
    newConnections: c.newConnections.map((conn) => ({ ...conn, participantId: handshake.participantId })),
    events: c.events.map((e) => ({
      ts: e.ts,
      participantId: handshake.participantId,
      connectionId: e.connectionDbId,
      type: e.type,
      detail: e.detail,
    })),
  };
}
