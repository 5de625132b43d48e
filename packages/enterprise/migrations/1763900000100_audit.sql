-- Up Migration
-- The audit trail. Rows are append-only and hash-chained in `seq` order: each row stores the hash of the
-- row before it and its own hash over its content, so a changed or removed row breaks the chain.
-- `id` is a ULID whose time part is `ts` to the millisecond, so time filters become id ranges and every
-- listing walks one (filter column, id) index newest first.
CREATE TABLE audit_events (
  seq         bigint      PRIMARY KEY,
  id          text        NOT NULL UNIQUE,
  ts          timestamptz NOT NULL,
  user_id     text        NOT NULL,
  user_email  text        NOT NULL DEFAULT '',
  source_ip   text        NOT NULL DEFAULT '',
  user_agent  text        NOT NULL DEFAULT '',
  action      text        NOT NULL,
  resource    text        NOT NULL,
  name        text        NOT NULL DEFAULT '',
  project     text,
  namespace   text,
  request_id  text        NOT NULL,
  result      text        NOT NULL CHECK (result IN ('success', 'denied', 'error')),
  http_status integer     NOT NULL,
  details     jsonb       NOT NULL DEFAULT '{}'::jsonb,
  prev_hash   text        NOT NULL,
  hash        text        NOT NULL
);
CREATE INDEX audit_events_user ON audit_events (user_id, id);
CREATE INDEX audit_events_action ON audit_events (action, id);
CREATE INDEX audit_events_resource ON audit_events (resource, id);
CREATE INDEX audit_events_project ON audit_events (project, id) WHERE project IS NOT NULL;
CREATE INDEX audit_events_result ON audit_events (result, id) WHERE result <> 'success';

-- Rows are never updated; retention deletes whole old days from the start of the chain.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only';
END $$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

-- The head of the chain, one row. Every append locks it and updates it in the statement that inserts the
-- events, so its row lock serialises appends of all replicas into one chain. `anchor_*` is where
-- the chain starts after retention removed its oldest rows.
CREATE TABLE audit_chain (
  id          smallint PRIMARY KEY CHECK (id = 1),
  seq         bigint   NOT NULL,
  hash        text     NOT NULL,
  prev_hash   text     NOT NULL,
  anchor_seq  bigint   NOT NULL,
  anchor_hash text     NOT NULL
);
INSERT INTO audit_chain VALUES (1, 0, repeat('0', 64), repeat('0', 64), 0, repeat('0', 64));

-- Settings of the trail, one row, read by every replica on every audited operation.
CREATE TABLE audit_config (
  id                smallint    PRIMARY KEY CHECK (id = 1),
  enabled           boolean     NOT NULL DEFAULT true,
  retention_days    integer     NOT NULL DEFAULT 365 CHECK (retention_days BETWEEN 1 AND 3650),
  exclude_actions   text[]      NOT NULL DEFAULT '{}',
  exclude_resources text[]      NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now()
);
INSERT INTO audit_config (id) VALUES (1);

-- Down Migration
DROP TABLE audit_config;
DROP TABLE audit_chain;
DROP TABLE audit_events;
DROP FUNCTION audit_events_append_only();
