-- The statement benchmark's mailbox (benches/workload/mod.rs), kept apart
-- from mailbox.sql because its figures are measured on it: integer ids (a
-- size's rows come from one recursive INSERT, and a round binds them as
-- numbers), a CHECK on the state and NOT NULL columns, and a one-row mint
-- the claim counts up, so a round leaves lease_tokens at its size's count.
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('NEW', 'CLAIMED', 'DONE', 'DEAD')),
  claim_owner TEXT,
  fencing_token INTEGER
);
CREATE TABLE lease_tokens (token INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL);
CREATE TABLE mint (next_token INTEGER NOT NULL);
INSERT INTO mint VALUES (0);
