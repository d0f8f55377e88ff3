-- Modules meet at services, not tables: the labels another module's record is answered with are copied
-- when the reference is made, from the owning module's service, instead of joined on every read.
-- Only labels that never change are copied (lot codes, batch numbers, a roasted lot's best-before day:
-- no operation changes them); mutable ones (a location's code and name) are asked of their module.

-- A roasted lot carries its roast batch's number and its green lot's code.
alter table roasted_lots add column batch_number text, add column green_lot_code text;
update roasted_lots r set batch_number = b.batch_number from roast_batches b where b.org_id = r.org_id and b.id = r.roast_batch_id;
update roasted_lots r set green_lot_code = g.lot_code from green_lots g where g.org_id = r.org_id and g.id = r.green_lot_id;

-- An order line carries the codes of the lots it names.
alter table order_lines add column roasted_lot_code text, add column green_lot_code text;
alter table order_lines disable trigger append_only;
update order_lines l set roasted_lot_code = r.lot_code from roasted_lots r where r.org_id = l.org_id and r.id = l.roasted_lot_id;
update order_lines l set green_lot_code = g.lot_code from green_lots g where g.org_id = l.org_id and g.id = l.green_lot_id;
alter table order_lines enable trigger append_only;

-- A claim carries its lot's code and best-before day (roast day in UTC + the lot's shelf life).
alter table order_allocations add column lot_code text, add column best_before date;
update order_allocations a set lot_code = r.lot_code, best_before = (r.roasted_at at time zone 'UTC')::date + r.shelf_life_days
  from roasted_lots r where r.org_id = a.org_id and r.id = a.roasted_lot_id;
alter table order_allocations alter column lot_code set not null, alter column best_before set not null;
