-- Up Migration
-- Erasure without breaking the chain (contract §12.2).
--
-- A row of chain version 2 is hashed over a digest of its details (`details_digest`: sha256 of the details'
-- canonical JSON) instead of the details themselves. A Server Admin can therefore erase one event's details: the
-- row keeps its digest and its hash, its details become {}, and `erased_*` say when, by whom and why; `verify`
-- checks the digest of every row that is not erased, and the hash and the link of every row.
--
-- Rows written before this migration are version 1 and keep their rule: `verify` recomputes their hash over their
-- details, so an existing trail still verifies, and the first version-2 row points back to the last version-1 row
-- as any row points back to the one before it. They cannot be erased (their hash covers their details). A replica
-- of the previous release still running during an upgrade writes version-1 rows (the column's default); they
-- verify too.
ALTER TABLE audit_events
  ADD COLUMN chain_version  smallint NOT NULL DEFAULT 1,
  ADD COLUMN details_digest text,
  ADD COLUMN erased_at      timestamptz,
  ADD COLUMN erased_by      text,
  ADD COLUMN erased_reason  text;

-- NOT VALID: every existing row satisfies them (version 1, nothing erased), and a long trail is not scanned under
-- the table's lock to prove it; every row written or changed from now on is checked.
ALTER TABLE audit_events
  ADD CONSTRAINT audit_events_chain_version CHECK (chain_version IN (1, 2)) NOT VALID,
  ADD CONSTRAINT audit_events_digest CHECK (chain_version = 1 OR details_digest IS NOT NULL) NOT VALID,
  ADD CONSTRAINT audit_events_erasure CHECK (
    (erased_at IS NULL AND erased_by IS NULL AND erased_reason IS NULL)
    OR (erased_at IS NOT NULL AND erased_by IS NOT NULL AND erased_reason IS NOT NULL AND chain_version = 2 AND details = '{}'::jsonb)
  ) NOT VALID;

-- Rows stay append-only but for one change: the erasure of the details of a version-2 row, once. Every other
-- column (everything the chain covers, the digest included) must stay as it was.
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.chain_version = 2 AND OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL AND NEW.details = '{}'::jsonb
     AND to_jsonb(NEW) - ARRAY['details', 'erased_at', 'erased_by', 'erased_reason'] = to_jsonb(OLD) - ARRAY['details', 'erased_at', 'erased_by', 'erased_reason']
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit events are append-only (only the details of an event can be erased, once)';
END $$;

-- Kept and returned, without effect on a trail in PostgreSQL: clients send back the whole configuration they read.
ALTER TABLE audit_config ADD COLUMN max_stream_length integer NOT NULL DEFAULT 100000 CHECK (max_stream_length >= 1000);

-- Down Migration
ALTER TABLE audit_config DROP COLUMN max_stream_length;
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only';
END $$;
-- Version-2 rows stay, but the previous release's `verify` hashes every row over its details: they no longer verify.
ALTER TABLE audit_events
  DROP CONSTRAINT audit_events_erasure,
  DROP CONSTRAINT audit_events_digest,
  DROP CONSTRAINT audit_events_chain_version,
  DROP COLUMN erased_reason,
  DROP COLUMN erased_by,
  DROP COLUMN erased_at,
  DROP COLUMN details_digest,
  DROP COLUMN chain_version;
