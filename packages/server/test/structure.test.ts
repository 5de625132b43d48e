import { describe, expect, it } from 'vitest';
import { sources } from './support/sources.js';

const importsOf = (text: string) => [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]!);
const offending = (dir: string, test: (text: string) => boolean) => sources(dir).filter((s) => test(s.text)).map((s) => s.file);

describe('one home for each rule', () => {
  it('core/rbac and core/projects do not import each other', () => {
    expect(offending('core/src/rbac', (t) => importsOf(t).some((i) => i.includes('/projects/')))).toEqual([]);
    expect(offending('core/src/projects', (t) => importsOf(t).some((i) => i.includes('/rbac/')))).toEqual([]);
  });

  it("the server's ws/ holds no authorization logic: who may receive an event is core's answer", () => {
    const authorization = /\bauthz\b|\.can\(|isServerAdmin|memberProjects|DecisionCache|createAudience|rbac/;
    expect(offending('server/src/ws', (t) => authorization.test(t))).toEqual([]);
  });

  it('no route parameter or input type is written by hand beside the schemas', () => {
    // Handlers take their types from the route table (routeHandlers), not from a generic spelt per route.
    expect(offending('server/src/handlers', (t) => /\bhandler</.test(t) || /type \w+ = \{ (params|query|body)\b/.test(t))).toEqual([]);
    // Client inputs are the routes' schema types (RouteBodyInput, RouteParamsInput, RouteQuery).
    const handWritten = /export interface (?!Route)\w*(Input|Ref|Filter|Params|Query)\b/;
    expect(offending('client/src', (t) => handWritten.test(t))).toEqual([]);
    // The SDK's return types come from the route ids, not from a type argument per call.
    expect(offending('client/src/resources', (t) => /\bcall</.test(t))).toEqual([]);
  });
});
