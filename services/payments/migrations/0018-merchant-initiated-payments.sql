-- A merchant-initiated payment keeps the network transaction id it was sent
-- with, so a status query after a crash repeats exactly the request its attempts made; null: the
-- customer was present.
ALTER TABLE payments ADD COLUMN mit_network_transaction_id text;
