import type { Actor } from '../actor.js';
import type { Operation, OperationHook } from './operation.js';
import { currentScope, insideOperation } from './request-facts.js';

/** Where an operation's name, project and namespace come from, given the method's arguments (and its result). */
export interface OperationRow<Args extends unknown[] = never[], Result = unknown> {
  /** The id of the operation in the vocabulary (`@portico/api`'s `operations`), which gives action and resource. */
  id: string;
  /** The position of the actor argument (absent: an operation before sign-in). */
  actor?: number;
  /** The object, project and namespace as the arguments say them. */
  subject(...args: Args): { name: string; project?: string; namespace?: string };
  /** What the result adds that the arguments did not say (an instance's project). */
  fromResult?(result: Result): { project?: string };
  /** The argument recorded as input (default: the last one). */
  input?(...args: Args): unknown;
  /** Fields of the input whose values are secret as a whole. */
  secretFields?: readonly string[];
}

export interface OperationDefinition {
  action: string;
  resource: string;
}

export interface OperationRunner {
  /**
   * Whether any hook sees the operations, and so the request facts a transport hands them: without one, a
   * transport need not open a request scope (an AsyncLocalStorage scope, once opened in a process, makes every
   * promise and tick after it dearer).
   */
  readonly observed: boolean;
  /** Wraps the methods a table names; the other members are the service's own. */
  wrap<S extends object>(service: S, table: { readonly [K in keyof S]?: OperationRow<never[], unknown> }): S;
}

const composed = (hooks: readonly OperationHook[]): OperationHook | undefined =>
  hooks.length === 0
    ? undefined
    : hooks.reduceRight<OperationHook>((inner, hook) => (operation, run) => hook(operation, () => inner(operation, run)), (_operation, run) => run());

/**
 * The operation seam: every mutating method named by a table runs inside the hooks, outermost first. A method
 * called from inside another operation runs as part of it (recorded once). Without hooks, wrapping is free.
 */
export function createOperationRunner(hooks: readonly OperationHook[], definitions: (id: string) => OperationDefinition | undefined): OperationRunner {
  const hook = composed(hooks);
  return {
    observed: hook !== undefined,
    wrap(service, table) {
      if (!hook) return service;
      const wrapped = Object.create(service) as Record<string, unknown>;
      for (const [method, row] of Object.entries(table) as [string, OperationRow<unknown[], unknown>][]) {
        const definition = definitions(row.id);
        if (!definition) throw new Error(`operation "${row.id}" is not in the vocabulary`);
        const inner = (service as Record<string, (...args: unknown[]) => unknown>)[method]!.bind(service);
        wrapped[method] = (...args: unknown[]) => {
          const scope = currentScope();
          if (scope?.inOperation) return inner(...args);
          const operation = operationOf(row, definition, args, scope?.facts ?? {});
          return insideOperation(operation.request, () =>
            hook(operation, async () => {
              const result = await inner(...args);
              const extra = row.fromResult?.(result);
              if (extra?.project !== undefined && operation.project === undefined) operation.project = extra.project;
              return result;
            }),
          );
        };
      }
      return wrapped as typeof service;
    },
  };
}

function operationOf(row: OperationRow<unknown[], unknown>, definition: OperationDefinition, args: unknown[], request: Operation['request']): Operation {
  const subject = row.subject(...args);
  const actor = row.actor === undefined ? undefined : (args[row.actor] as Actor | undefined);
  const operation: Operation = {
    id: row.id,
    action: definition.action,
    resource: definition.resource,
    name: subject.name,
    input: row.input ? row.input(...args) : args.at(-1),
    secretFields: row.secretFields ?? [],
    request,
  };
  if (actor) operation.actor = { id: actor.id, email: actor.email };
  if (subject.project !== undefined) operation.project = subject.project;
  if (subject.namespace !== undefined) operation.namespace = subject.namespace;
  return operation;
}
