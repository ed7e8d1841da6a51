UPDATE tickets SET state = 'TAKEN' WHERE 0;
-- @refuse not_open unless changed 1: not open
