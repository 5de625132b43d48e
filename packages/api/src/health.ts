import { z } from 'zod';

export const Healthz = z.object({ status: z.literal('ok') });
export const Readyz = z.object({
  status: z.enum(['ok', 'unavailable']),
  components: z.record(z.string(), z.object({ ok: z.boolean(), message: z.string().optional() })),
});
export type Readyz = z.infer<typeof Readyz>;

/** The server's release, for `portico version` and support questions. */
export const ServerVersion = z.object({ version: z.string() });
export type ServerVersion = z.infer<typeof ServerVersion>;
