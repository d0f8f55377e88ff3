-- A replayed request answers the first answer byte for byte: the encoded JSON is kept as text (jsonb would
-- reorder keys and drop whitespace). Rows already stored keep their (normalized) text.
alter table idempotency_records alter column response_body type text using response_body::text;
