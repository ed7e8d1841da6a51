-- The toy mailbox the engine's tests run on: messages that workers claim
-- under a fencing token minted from lease_tokens. Each test inserts its own
-- messages after these tables.
CREATE TABLE messages (
  id TEXT PRIMARY KEY, body TEXT, state TEXT NOT NULL, claim_owner TEXT,
  fencing_token INT, retry_count INT DEFAULT 0, claim_expires_at INT);
CREATE TABLE lease_tokens (token INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT);
