-- Web shop connections (Shopify, WooCommerce): each has its own webhook address and the shop's signing
-- secret, stored encrypted (AES-256-GCM under FIRSTCRACK_SECRET_KEY, src/crypto/secrets.ts) as webhook
-- endpoints' secrets are. The shop's orders are booked to the connection's customer; order numbers are the
-- connection's code, a dash and the shop's order number. A deleted connection answers nothing any more
-- (its orders stay).
create table shop_connections (
  org_id text not null references organizations (id),
  id text not null,
  platform text not null check (platform in ('shopify', 'woocommerce')),
  name text not null,
  code text not null,
  customer_id text not null,
  secret_encrypted text not null,
  secret_rotated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  primary key (org_id, id),
  foreign key (org_id, customer_id) references customers (org_id, id)
);
select firstcrack_tenant_table('shop_connections');
create unique index shop_connections_code on shop_connections (org_id, code) where deleted_at is null;

-- A shop's order is the order of its connection with the shop's own id: a redelivered webhook finds it.
-- Orders of no shop keep their key (channel, external id); a shop's key is its connection's, so two shops'
-- order 727 are two orders. draft_reason: why an order from a shop was left in draft (an unknown SKU).
alter table orders
  add column shop_connection_id text,
  add column draft_reason text,
  add constraint orders_shop_connection foreign key (org_id, shop_connection_id) references shop_connections (org_id, id),
  drop constraint orders_org_id_channel_external_order_id_key;
create unique index orders_external_id on orders (org_id, channel, external_order_id) where shop_connection_id is null;
create unique index orders_shop_external_id on orders (org_id, shop_connection_id, external_order_id) where shop_connection_id is not null;
