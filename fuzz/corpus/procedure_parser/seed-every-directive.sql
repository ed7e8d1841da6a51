BEGIN IMMEDIATE;
INSERT INTO lease_tokens (kind) VALUES ('x') RETURNING token;
-- @refuse no_token unless returned 1: no token for {message_id}
UPDATE messages SET state = 'CLAIMED' WHERE id = :message_id /* a; comment */ AND state = 'NEW';
-- @refuse not_claimable unless changed 1
-- @return token if returned 0
-- @effect invoke_provider token, message_id
SELECT 'it''s ;' AS "quoted;name", x'00' FROM messages;
COMMIT;
-- @return token
