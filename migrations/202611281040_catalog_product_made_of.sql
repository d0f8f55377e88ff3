-- What a product is made of: the coffee allocation fills its order lines from and planning roasts for it.
-- A product names at most one of a roast profile (lots roasted with it fill the product) or a blend
-- (filled component by component); roast_level is the level it is roasted to (planning groups by it).
alter table products
  add column profile_id text,
  add column blend_id text,
  add column roast_level text check (roast_level in ('light', 'medium', 'dark')),
  add constraint products_made_of_one check (profile_id is null or blend_id is null),
  add constraint products_profile foreign key (org_id, profile_id) references roast_profiles (org_id, id),
  add constraint products_blend foreign key (org_id, blend_id) references blends (org_id, id);
