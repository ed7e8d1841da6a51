SELECT 1;
-- @refuse oops unless changed one
