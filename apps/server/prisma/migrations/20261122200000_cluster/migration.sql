-- Several server nodes: the socket.io PostgreSQL adapter relays live messages between them with
-- NOTIFY; payloads over NOTIFY's 8000-byte limit go through this table (its layout is the adapter's).
CREATE TABLE IF NOT EXISTS socket_io_attachments (
  id          bigserial UNIQUE,
  created_at  timestamptz DEFAULT NOW(),
  payload     bytea
);
