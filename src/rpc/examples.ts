/**
 * A request and its answer per operation, by operation name, for the API reference. Each module keeps its
 * own in `src/modules/<module>/examples.ts`; test/examples.test.ts holds every one to its operation's input and
 * output schemas, so an example cannot drift from what the operation takes and answers.
 */
export type OperationExamples = Record<string, { input: unknown; output: unknown }>;
