-- Up Migration
-- One row per user who used the API in the last days; seats are the distinct users seen in 30 days.
CREATE TABLE user_activity (
  user_id   text PRIMARY KEY,
  last_seen timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_activity_last_seen ON user_activity (last_seen);

-- Down Migration
DROP TABLE user_activity;
