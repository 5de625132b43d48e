export type { Operation, OperationHook, RequestFacts } from './operation.js';
export { withRequestFacts } from './request-facts.js';
export { createOperationRunner, type OperationRow, type OperationRunner } from './run.js';
