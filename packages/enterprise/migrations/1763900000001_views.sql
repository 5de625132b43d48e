-- Up Migration
-- Saved catalog views. A shared view has one slug for everybody; a private one is unique per owner.
CREATE TABLE catalog_views (
  slug        text        NOT NULL,
  owner       text        NOT NULL,
  shared      boolean     NOT NULL DEFAULT false,
  name        text        NOT NULL,
  icon        text        NOT NULL DEFAULT '',
  description text        NOT NULL DEFAULT '',
  "order"     integer     NOT NULL DEFAULT 0,
  filter      jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (slug)
);
CREATE INDEX catalog_views_owner ON catalog_views (owner);

-- Down Migration
DROP TABLE catalog_views;
