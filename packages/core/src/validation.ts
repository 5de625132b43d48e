import type { z } from 'zod';
import { setBounded } from './bounded-map.js';
import { PorticoError } from './errors.js';
import { deepFreeze } from './freeze.js';

export type InputLocation = 'path' | 'query' | 'body';

const describeIssue = (issue: z.core.$ZodIssue) =>
  issue.code === 'invalid_type' && /received undefined$/.test(issue.message) ? 'is required' : issue.message;

/** Zod issues keyed by JSON path (`roles.0.name`); the first issue per path wins. */
export function fieldsOf(issues: readonly z.core.$ZodIssue[], location: InputLocation): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : location;
    if (!(key in fields)) fields[key] = describeIssue(issue);
  }
  return fields;
}

const nouns: Record<InputLocation, [string, string]> = {
  path: ['path parameter', 'path parameters'],
  query: ['query parameter', 'query parameters'],
  body: ['request body field', 'request body fields'],
};

/**
 * Parses one part of a request with its contract schema (the server for every route; services for
 * embedders, who must get the same 400 rather than a half-applied change), or throws 400 VALIDATION_FAILED whose message
 * names the offending parameter(s) and whose `details.fields` says what is wrong with each.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation = 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = fieldsOf(result.error.issues, location);
  const keys = Object.keys(fields);
  const [one, many] = nouns[location];
  const message =
    keys.length === 1
      ? `invalid ${one} "${keys[0]}": ${fields[keys[0]]}`
      : `invalid ${many}: ${keys.map((k) => `"${k}"`).join(', ')}`;
  throw new PorticoError('VALIDATION_FAILED', message, { fields, in: location });
}

/**
 * A parse that clients repeat word for word (a route's path and query string: dashboards poll the same URL)
 * is done once per text: the answer is remembered, deeply frozen so no caller can change it for the next, in a
 * bounded map (oldest out first). Refusals are not remembered; each costs what it did.
 */
export function rememberParses<T>(max: number): (text: string, parse: () => T) => T {
  const answers = new Map<string, T>();
  return (text, parse) => answers.get(text) ?? setBounded(answers, max, text, deepFreeze(parse()));
}
