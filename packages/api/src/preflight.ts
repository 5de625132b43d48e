import { z } from 'zod';
import { DnsLabel, DnsSubdomain } from './common.js';

const Values = z.record(z.string(), z.unknown());

/**
 * The body of a preflight as core reads it (contract §11.4): a create's body in either form, the name optional.
 * `project`/`projectId` and `values`/`spec` are aliases as on create; `rgdName` and `namespace` are Form B's.
 * The route itself takes any JSON (its `body` is `PreflightRequest`): a body that does not parse here is a failed
 * `request` check in a 200, not a 400, since the question "would this deploy succeed?" has an answer.
 */
export const PreflightBody = z
  .object({
    name: DnsSubdomain.optional(),
    namespace: DnsLabel.optional(),
    rgdName: DnsSubdomain.optional(),
    project: DnsLabel.optional(),
    projectId: DnsLabel.optional(),
    values: Values.optional(),
    spec: Values.optional(),
    deploymentMode: z.string().optional(),
  })
  .refine((b) => b.project !== undefined || b.projectId !== undefined, { message: 'project is required', path: ['project'] });
export type PreflightBody = z.infer<typeof PreflightBody>;

/** What the preflight routes accept: any JSON value (only malformed JSON is 400); documented as the create body. */
export const PreflightRequest = z.unknown().meta({
  openapi: {
    type: 'object',
    description:
      'The body of a create (either form; `name` optional). Any JSON is answered 200: a body that is not a valid create body is a failed `request` check.',
    properties: {
      name: { type: 'string' },
      namespace: { type: 'string', description: 'Form B; the path\'s namespace wins on the namespaced path' },
      rgdName: { type: 'string' },
      project: { type: 'string' },
      projectId: { type: 'string' },
      values: { type: 'object', additionalProperties: true },
      spec: { type: 'object', additionalProperties: true },
      deploymentMode: { type: 'string', enum: ['direct', 'gitops', 'hybrid'] },
    },
  },
});

/** The checks of a preflight, in the order a create runs them. */
export const preflightCheckNames = [
  'request', 'project', 'permission', 'destination', 'rgd', 'values', 'deploymentMode', 'name', 'compliance', 'admission',
] as const;

export const PreflightCheck = z.object({
  /** One of `preflightCheckNames`. */
  name: z.string(),
  ok: z.boolean(),
  message: z.string().optional(),
});
export type PreflightCheck = z.infer<typeof PreflightCheck>;

/** `valid: false` carries the first failing check's message; `warn` findings keep `valid: true` and appear in `checks`. */
export const PreflightResponse = z.object({
  valid: z.boolean(),
  message: z.string().optional(),
  checks: z.array(PreflightCheck),
});
export type PreflightResponse = z.infer<typeof PreflightResponse>;
