-- The local-day shot rollups are read per site and day only (getSitePerformance's days and totals; its
-- group heads come from the month × hour-of-day rollups), so they keep one row per site and local day rather
-- than one per machine and group head: a year reads 365 rows whatever the size of the site's bar, and a
-- statement storing several machines' shots updates one day row instead of one per group head.

alter table cafe_shot_day_rollups rename to cafe_shot_day_rollups_by_head;

create table cafe_shot_day_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  local_date date not null,
  shots int not null,
  outside_target int not null,
  channeling int not null,
  duration_sum_s double precision not null,
  primary key (org_id, site_id, local_date)
);
select firstcrack_tenant_table('cafe_shot_day_rollups');

insert into cafe_shot_day_rollups (org_id, site_id, local_date, shots, outside_target, channeling, duration_sum_s)
select org_id, site_id, local_date, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
from cafe_shot_day_rollups_by_head group by org_id, site_id, local_date;

drop table cafe_shot_day_rollups_by_head;
