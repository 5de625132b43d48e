-- Up Migration
-- Gatekeeper violation history: one row per episode of a violation, from first seen to resolved. Every replica
-- derives the rows from the same status changes; PostgreSQL makes one of them the writer of each change:
-- at most one active row per key (the unique partial index below, ON CONFLICT), and resolution is
-- an UPDATE of the active row only. A violation that comes back after resolution is a new row.
CREATE TABLE violation_history (
  id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key                text        NOT NULL,
  constraint_kind    text        NOT NULL,
  constraint_name    text        NOT NULL,
  resource_kind      text        NOT NULL,
  resource_namespace text        NOT NULL DEFAULT '',
  resource_name      text        NOT NULL,
  enforcement_action text        NOT NULL,
  message            text        NOT NULL DEFAULT '',
  -- The project whose namespaces held the resource when the violation was first seen (null: none); members
  -- of that project see the row.
  project            text,
  first_seen         timestamptz NOT NULL,
  -- When the stored enforcement_action was observed: an older copy of an enforcement change never overwrites
  -- a newer one.
  enforcement_seen   timestamptz NOT NULL,
  resolved_at        timestamptz,
  status             text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'resolved')),
  CHECK ((status = 'active') = (resolved_at IS NULL))
);
CREATE UNIQUE INDEX violation_history_one_active ON violation_history (key) WHERE status = 'active';
-- Listings read newest first; the filters narrow one of these.
CREATE INDEX violation_history_first_seen ON violation_history (first_seen DESC, id DESC);
CREATE INDEX violation_history_key ON violation_history (key, resolved_at);
CREATE INDEX violation_history_constraint ON violation_history (constraint_kind, constraint_name, first_seen DESC);
CREATE INDEX violation_history_resource ON violation_history (resource_kind, resource_namespace, resource_name, first_seen DESC);
CREATE INDEX violation_history_project ON violation_history (project, first_seen DESC) WHERE project IS NOT NULL;
-- Retention deletes resolved rows by age.
CREATE INDEX violation_history_resolved_at ON violation_history (resolved_at) WHERE status = 'resolved';

-- Down Migration
DROP TABLE violation_history;
