-- Stream tickets: a browser's EventSource cannot send an Authorization header, so an API key holder
-- exchanges its key for a ticket (POST /stream/v1/roast/{batchId}/tickets) and opens the stream with
-- ?ticket=. A ticket is good for one batch, for 60 seconds, and for one connection: the ticket sits in a
-- URL, where logs and browser history keep it, so a copy found there is already spent. Only a SHA-256 of
-- the ticket is stored (it carries 256 random bits), so any API process can redeem it.
create table stream_tickets (
  org_id text not null references organizations (id),
  id text not null,
  batch_id text not null,
  -- The API key that asked for the ticket: the stream acts with its permissions, re-checked at redemption.
  credential_id text not null,
  secret_hash text not null unique,
  expires_at timestamptz not null,
  redeemed_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, credential_id) references credentials (org_id, id)
);
select firstcrack_tenant_table('stream_tickets');
create index stream_tickets_by_expiry on stream_tickets (org_id, expires_at);

-- Redemption happens before the organization is known (the ticket is the only credential), so it runs as
-- the owner, like firstcrack_credential_by_hash. It spends the ticket atomically, so of two connections
-- racing with one ticket exactly one wins, and answers the issuing credential only while that credential is
-- itself still live, in the same shape as firstcrack_credential_by_hash.
create function firstcrack_redeem_stream_ticket(hash text, batch text)
returns table (id text, org_id text, kind text, role text, scopes text[], machine_id text, plan text)
language sql volatile security definer set search_path = public as $$
  update stream_tickets t set redeemed_at = now()
  from credentials c, organizations o
  where t.secret_hash = hash
    and t.batch_id = batch
    and t.redeemed_at is null
    and t.expires_at > now()
    and c.org_id = t.org_id and c.id = t.credential_id
    and c.revoked_at is null
    and (c.expires_at is null or c.expires_at > now())
    and o.id = c.org_id
  returning c.id, c.org_id, c.kind, c.role, c.scopes, c.machine_id, o.plan
$$;
grant execute on function firstcrack_redeem_stream_ticket(text, text) to firstcrack_app;
