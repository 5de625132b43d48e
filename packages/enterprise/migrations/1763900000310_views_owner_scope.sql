-- Up Migration
-- A private view's slug is its owner's own: two people may each keep a private "mine", and creating one never
-- tells anybody that somebody else holds the same slug. A shared view's slug is one for everybody. The key is
-- (slug, scope): scope is '' for a shared view and the owner for a private one.
ALTER TABLE catalog_views ADD COLUMN scope text GENERATED ALWAYS AS (CASE WHEN shared THEN '' ELSE owner END) STORED;
ALTER TABLE catalog_views DROP CONSTRAINT catalog_views_pkey;
ALTER TABLE catalog_views ADD PRIMARY KEY (slug, scope);

-- Down Migration
-- Fails while two owners hold the same private slug: the old key cannot hold both.
ALTER TABLE catalog_views DROP CONSTRAINT catalog_views_pkey;
ALTER TABLE catalog_views ADD PRIMARY KEY (slug);
ALTER TABLE catalog_views DROP COLUMN scope;
