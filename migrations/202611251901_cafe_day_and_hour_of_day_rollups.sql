-- Cafe performance over long ranges: besides the hourly rollups, the shot channel and the POS import keep,
-- in the same statement, a rollup per local day and one per local month and local hour of day (0–23).
-- getSitePerformance answers a range's days, group heads and totals from the day rollups and its
-- hour-of-day profile from the month × hour-of-day rollups for whole months (the hourly ones only for the
-- partial months at the range's edges), so a year reads a few thousand rows instead of ~26,000.
-- Their local day and hour are those of the UTC hour's start, exactly as in cafe_shot_rollups, so both
-- paths give the same answer (half-hour timezones and DST days included).

create table cafe_shot_day_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  local_date date not null,
  machine_id text not null,
  group_no int not null,
  shots int not null,
  outside_target int not null,
  channeling int not null,
  duration_sum_s double precision not null,
  primary key (org_id, site_id, local_date, machine_id, group_no)
);
select firstcrack_tenant_table('cafe_shot_day_rollups');

create table cafe_shot_hour_of_day_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  -- The first day of the local month.
  local_month date not null check (extract(day from local_month) = 1),
  local_hour int not null check (local_hour between 0 and 23),
  machine_id text not null,
  group_no int not null,
  shots int not null,
  outside_target int not null,
  channeling int not null,
  duration_sum_s double precision not null,
  primary key (org_id, site_id, local_month, local_hour, machine_id, group_no)
);
select firstcrack_tenant_table('cafe_shot_hour_of_day_rollups');

create table cafe_sale_day_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  local_date date not null,
  lines int not null,
  shot_equivalents bigint not null,
  primary key (org_id, site_id, local_date)
);
select firstcrack_tenant_table('cafe_sale_day_rollups');

create table cafe_sale_hour_of_day_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  local_month date not null check (extract(day from local_month) = 1),
  local_hour int not null check (local_hour between 0 and 23),
  lines int not null,
  shot_equivalents bigint not null,
  primary key (org_id, site_id, local_month, local_hour)
);
select firstcrack_tenant_table('cafe_sale_hour_of_day_rollups');

-- What the hourly rollups already hold.
insert into cafe_shot_day_rollups (org_id, site_id, local_date, machine_id, group_no, shots, outside_target, channeling, duration_sum_s)
select org_id, site_id, local_date, machine_id, group_no, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
from cafe_shot_rollups group by org_id, site_id, local_date, machine_id, group_no;

insert into cafe_shot_hour_of_day_rollups (org_id, site_id, local_month, local_hour, machine_id, group_no, shots, outside_target, channeling, duration_sum_s)
select org_id, site_id, date_trunc('month', local_date)::date, local_hour, machine_id, group_no, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
from cafe_shot_rollups group by org_id, site_id, date_trunc('month', local_date)::date, local_hour, machine_id, group_no;

insert into cafe_sale_day_rollups (org_id, site_id, local_date, lines, shot_equivalents)
select org_id, site_id, local_date, sum(lines), sum(shot_equivalents) from cafe_sale_rollups group by org_id, site_id, local_date;

insert into cafe_sale_hour_of_day_rollups (org_id, site_id, local_month, local_hour, lines, shot_equivalents)
select org_id, site_id, date_trunc('month', local_date)::date, local_hour, sum(lines), sum(shot_equivalents)
from cafe_sale_rollups group by org_id, site_id, date_trunc('month', local_date)::date, local_hour;
