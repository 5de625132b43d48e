import { z } from 'zod';

export const Healthz = z.object({ status: z.literal('ok') });
export const Readyz = z.object({
  status: z.enum(['ok', 'unavailable']),
  components: z.record(z.string(), z.object({ ok: z.boolean(), message: z.string().optional() })),
});
export type Readyz = z.infer<typeof Readyz>;
