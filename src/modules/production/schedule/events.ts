import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { ProductionSchedule } from './schemas.js';

export const scheduleGenerated = defineEvent('production.schedule.generated', 'A draft production schedule was generated.', out({ schedule: ProductionSchedule }));
export const scheduleReleased = defineEvent('production.schedule.released', 'A production schedule was released to the roasting floor.', out({ schedule: ProductionSchedule }));
