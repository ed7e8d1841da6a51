//! Exercise 1 on PostgreSQL: its schema and reference, for the engine's
//! tests and the benchmark's fixture (`benches/check.rs`).

/// Exercise 1's tables on PostgreSQL: the token counter an identity column.
pub const CLAIM_SCHEMA: &str = "
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('NEW', 'CLAIMED', 'DONE', 'DEAD')),
  claim_owner TEXT,
  fencing_token BIGINT
);
CREATE TABLE lease_tokens (
  token BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind TEXT NOT NULL
);
INSERT INTO messages (id, body, state) VALUES ('msg-1', 'Restock vanilla', 'NEW');
";

/// Exercise 1's reference, with PostgreSQL's BEGIN: the compare-and-set.
pub const CLAIM_REFERENCE: &str = "
BEGIN;
INSERT INTO lease_tokens (kind) VALUES ('mailbox_claim') RETURNING token;
UPDATE messages
   SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless changed 1: not claimable
COMMIT;
-- @return token
";
