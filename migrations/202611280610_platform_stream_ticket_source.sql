-- A stream ticket keeps the one token it was asked for with (`source`: an API key, an OAuth opaque token, a
-- JWT's jti and expiry), so the stream it opens ends when that token does, like a stream opened with the token
-- itself. Tickets asked for before this column existed hold only their credential: an API key's is that key;
-- the other kinds' (at most 60 seconds old) are no longer redeemed (firstcrack_redeem_stream_ticket_principal).
alter table stream_tickets add column source jsonb;
update stream_tickets set source = jsonb_build_object('kind', 'stored', 'id', credential_id) where kind = 'api_key';
