-- Identity: OAuth 2.0 clients (client credentials grant), their opaque access tokens, the keys that sign
-- JWT access tokens, users, their memberships in organizations, and user sessions.
--
-- oauth_clients, oauth_access_tokens and memberships belong to one organization (row-level security as every
-- organization table). users, user_sessions and signing_keys are the service's own: a user spans
-- organizations, and one key set signs every organization's tokens. Only hashes of secrets are stored; a
-- signing key's private half is stored encrypted (src/auth/key-encryption.ts).
-- Lookups made before the organization is known run through the security-definer functions of
-- migrations/repeatable/identity_lookups.sql, like firstcrack_credential_by_hash.

create table oauth_clients (
  org_id text not null references organizations (id),
  id text not null,
  role text not null,
  -- Empty: the client holds all of its role's permissions.
  scopes text[] not null default '{}',
  secret_hash text not null unique,
  label text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  primary key (org_id, id),
  unique (id)
);
select firstcrack_tenant_table('oauth_clients');

-- Opaque access tokens (issued without `resource`): checked on each request, so revoking the client ends them at once.
create table oauth_access_tokens (
  org_id text not null,
  id text not null,
  client_id text not null,
  token_hash text not null unique,
  scope text[] not null,
  issued_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (org_id, id),
  foreign key (org_id, client_id) references oauth_clients (org_id, id)
);
select firstcrack_tenant_table('oauth_access_tokens');
create index oauth_access_tokens_by_expiry on oauth_access_tokens (org_id, expires_at);

-- JWT signing keys. The newest key that is not retired signs; a retired key stays published (JWKS) until every
-- token it signed has expired (retired_at + the token lifetime).
create table signing_keys (
  id text primary key,
  alg text not null,
  public_jwk jsonb not null,
  private_key_encrypted text not null,
  created_at timestamptz not null,
  retired_at timestamptz
);

create table users (
  id text primary key,
  email text not null check (length(email) between 3 and 320),
  password_hash text,
  -- A one-time login link's token (SHA-256), spent on first use.
  login_link_hash text unique,
  login_link_expires_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index users_by_email on users (lower(email));

create table memberships (
  org_id text not null references organizations (id),
  user_id text not null references users (id),
  role text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
select firstcrack_tenant_table('memberships');
create index memberships_by_user on memberships (user_id);

create table user_sessions (
  id text primary key,
  user_id text not null references users (id),
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index user_sessions_by_user on user_sessions (user_id);
