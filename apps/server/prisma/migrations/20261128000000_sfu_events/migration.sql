-- What an SFU reports of its own rooms (Janus's event handlers): who joined and left, what each member
-- published and subscribed to, when its connections came up and hung up. The call page joins a room's
-- events to the call whose streams name the room (janus:<room>:<feed>:<mid>), so a member whose SDK never
-- reported still shows. A retransmitted event is the same row (the unique key), never a second one.
CREATE TABLE sfu_event (
  id BIGSERIAL PRIMARY KEY,
  project_id UUID NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  sfu TEXT NOT NULL,
  room TEXT,
  session TEXT NOT NULL,
  handle TEXT NOT NULL,
  at TIMESTAMPTZ(6) NOT NULL,
  kind TEXT NOT NULL,
  feed TEXT NOT NULL DEFAULT '',
  detail JSONB NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX sfu_event_once ON sfu_event (project_id, sfu, session, handle, at, kind, feed);
CREATE INDEX sfu_event_room ON sfu_event (project_id, sfu, room, at);
CREATE INDEX sfu_event_handle ON sfu_event (project_id, sfu, handle);
