-- The dashboard's per-client-address throttles (register, sign-in, password reset and its confirm,
-- invitation accept, operator sign-in): one row per route, address and clock minute, counted by one
-- statement (gateway/store/address-throttle.ts) so every gateway replica shares one budget. Rows of
-- past minutes are deleted in passing by that same statement, a few at a time: no sweep job needed.
CREATE TABLE address_throttle_windows (
  route         text NOT NULL,
  address       text NOT NULL,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL CHECK (count >= 0),
  PRIMARY KEY (route, address, window_start)
) WITH (fillfactor = 70);
CREATE INDEX address_throttle_windows_start ON address_throttle_windows (window_start);
