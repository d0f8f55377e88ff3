-- Roast weights keep what the scale said: a roast logger records grams to a tenth (130.0 g in, 115.2 g out), so
-- a batch's charge and drop are kept to 0.1 g (4 decimals of kg) and its weight loss is exact from them. Stock
-- moves (green consumed, roasted lot opened) stay in whole grams, the weights rounded half up.
alter table roast_batches alter column charge_weight_kg type numeric(13, 4);
alter table roast_batches alter column drop_weight_kg type numeric(13, 4);
