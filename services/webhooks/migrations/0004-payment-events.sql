-- The payment an event is about (the payment itself, or a refund's payment), so a payment's
-- timeline finds the attempts of its events' deliveries without reading bodies.
ALTER TABLE events ADD COLUMN payment_id text;
UPDATE events SET payment_id = CASE
    WHEN body::jsonb #>> '{data,object,object}' = 'payment' THEN body::jsonb #>> '{data,object,id}'
    ELSE body::jsonb #>> '{data,object,payment_id}' END;
CREATE INDEX events_payment ON events (payment_id) WHERE payment_id IS NOT NULL;
