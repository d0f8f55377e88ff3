-- A stream ticket can be asked for by any API credential (an API key, an OAuth client's token, a console
-- user's session), not only by an API key: the ticket keeps what the stream may do (the credential's kind,
-- role and effective permissions at issue), so it no longer references the credentials table. An API key's
-- ticket is still refused at redemption once the key is revoked or expired; the other kinds' tickets live
-- their 60 seconds (and the stream's own credential check ends the stream after a revocation).
alter table stream_tickets drop constraint if exists stream_tickets_org_id_credential_id_fkey;
alter table stream_tickets add column kind text not null default 'api_key', add column role text, add column permissions text[];

create function firstcrack_redeem_stream_ticket_principal(hash text, batch text)
returns table (id text, org_id text, kind text, role text, permissions text[], plan text)
language sql volatile security definer set search_path = public as $$
  update stream_tickets t set redeemed_at = now()
  from organizations o
  where t.secret_hash = hash
    and t.batch_id = batch
    and t.redeemed_at is null
    and t.expires_at > now()
    and t.permissions is not null
    and o.id = t.org_id
    and (t.kind <> 'api_key' or exists (
      select 1 from credentials c
      where c.org_id = t.org_id and c.id = t.credential_id and c.revoked_at is null and (c.expires_at is null or c.expires_at > now())))
  returning t.credential_id, t.org_id, t.kind, t.role, t.permissions, o.plan
$$;
grant execute on function firstcrack_redeem_stream_ticket_principal(text, text) to firstcrack_app;
drop function firstcrack_redeem_stream_ticket(text, text);
