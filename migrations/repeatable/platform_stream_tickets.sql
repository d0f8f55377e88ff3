-- Redeeming a stream ticket happens before the organization is known (the ticket is the only credential), so
-- it runs as the owner, like firstcrack_credential_by_hash. It spends the ticket atomically (of two connections
-- racing with one ticket exactly one wins) and answers the principal the ticket was issued for, with the token
-- it was asked for with (`source`), which the caller checks is still live. An API key's ticket is refused here
-- already once the key is revoked or expired.
--
-- A repeatable migration: this is the one current text of this function, re-applied whenever it changes.
drop function if exists firstcrack_redeem_stream_ticket_principal(text, text);
create function firstcrack_redeem_stream_ticket_principal(hash text, batch text)
returns table (id text, org_id text, kind text, role text, permissions text[], plan text, source jsonb)
language sql volatile security definer set search_path = public as $$
  update stream_tickets t set redeemed_at = now()
  from organizations o
  where t.secret_hash = hash
    and t.batch_id = batch
    and t.redeemed_at is null
    and t.expires_at > now()
    and t.permissions is not null
    and t.source is not null
    and o.id = t.org_id
    and (t.kind <> 'api_key' or exists (
      select 1 from credentials c
      where c.org_id = t.org_id and c.id = t.credential_id and c.revoked_at is null and (c.expires_at is null or c.expires_at > now())))
  returning t.credential_id, t.org_id, t.kind, t.role, t.permissions, o.plan, t.source
$$;
grant execute on function firstcrack_redeem_stream_ticket_principal(text, text) to firstcrack_app;
