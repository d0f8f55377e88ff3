import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {};
