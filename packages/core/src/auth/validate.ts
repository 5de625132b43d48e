import type { z } from 'zod';
import { validationFailed } from '../errors.js';

/**
 * Validates input with the contract's schema. The server validates too, but embedders call the services
 * directly and must get the same 400, not a half-applied change.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const path = issue.path.map(String).join('.') || '(body)';
    fields[path] ??= issue.message;
  }
  throw validationFailed(fields);
}
