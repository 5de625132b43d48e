-- Up Migration
-- Fail closed, strictly (contract §12.2): an audited operation first writes a durable intent, runs, then in one
-- statement deletes its intent and appends its event. An intent still here later is an operation whose ending was
-- never recorded (its process died, or PostgreSQL was gone when it ended and stayed gone): recovery turns it into an
-- event with result `error` and `OUTCOME_UNKNOWN`. `draft` is that event before it has an id, already redacted.
-- `boot_id` names the process that wrote it, so recovery leaves the intents of operations still running alone.
CREATE TABLE audit_intents (
  id         text        PRIMARY KEY,
  boot_id    text        NOT NULL,
  draft      jsonb       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_intents_created ON audit_intents (created_at);

-- Down Migration
DROP TABLE audit_intents;
