-- A profile may state how long its roasts keep: a lot roasted on it is best before its roast day plus that
-- many days (roasted_lots.shelf_life_days, set when the lot is made; 90 without a profile or a stated shelf life).
alter table roast_profiles add column shelf_life_days int check (shelf_life_days between 1 and 730);
