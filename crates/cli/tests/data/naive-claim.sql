SELECT state FROM messages WHERE id = :message_id AND state = 'NEW';
-- @refuse not_claimable unless returned 1: not claimable
INSERT INTO lease_tokens (kind) VALUES ('mailbox_claim') RETURNING token;
UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
 WHERE id = :message_id;
-- @return token
