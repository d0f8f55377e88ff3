-- Extension (not in the specification): a machine may state its burner (or heater) rating and fuel, so roast
-- metrics can report energy and CO2 the way Artisan does. Both null = unknown: energy metrics stay null.
alter table machines
  add column burner_rating_kw numeric(10,3) check (burner_rating_kw > 0),
  add column fuel text check (fuel in ('lpg', 'natural_gas', 'electric'));
