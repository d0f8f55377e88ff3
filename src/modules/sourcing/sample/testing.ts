import type { TestOrg } from '../../../testing/harness.js';

let counter = 0;

/** A sample made over the API, moved along `path` (statuses in order). */
export async function makeSample(org: TestOrg, input: Record<string, unknown> = {}, path: string[] = []): Promise<any> {
  counter += 1;
  const res = await org.call('sourcing.sample.createSample', {
    sampleNumber: `S-${Date.now().toString(36)}-${counter}`,
    name: `Sample ${counter}`,
    sampleType: 'offer',
    ...input,
  });
  if (res.status !== 200) throw new Error(`createSample: ${res.status} ${JSON.stringify(res.body)}`);
  let sample = res.body;
  for (const status of path) {
    const moved = await org.call('sourcing.sample.updateSampleStatus', { id: sample.id, status });
    if (moved.status !== 200) throw new Error(`updateSampleStatus ${status}: ${moved.status} ${JSON.stringify(moved.body)}`);
    sample = moved.body;
  }
  return sample;
}

/** The statuses from requested to a decision. */
export const TO_CUPPED = ['in_transit', 'received', 'roasted', 'cupped'];
