-- Which way each attempt reached its provider: the vault that forwarded the card, or
-- null for a token sent directly; and the accounts routing skipped because the payment's
-- credential does not reach them, as the payment's route shows them.
ALTER TABLE payment_attempts ADD COLUMN vault text;
ALTER TABLE payments ADD COLUMN route_skipped jsonb NOT NULL DEFAULT '[]';
