import type { z } from 'zod';
import { PorticoError } from './errors.js';

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
