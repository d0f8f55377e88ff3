import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Grading } from './schemas.js';

export const gradingRecorded = defineEvent('quality.grading.recorded', 'A physical grading of a green lot or sample was recorded, with its result.', out({ grading: Grading }));
export const gradingFailed = defineEvent(
  'quality.grading.failed',
  'A grading failed its standard’s rules (emitted besides quality.grading.recorded); a graded green lot is quarantined.',
  out({ grading: Grading }),
);
