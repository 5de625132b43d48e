import type { EnterpriseFamilyName, RouteDef } from '../route-def.js';
import type { EnterpriseOperationId } from './operations.js';

/**
 * A row of the Enterprise route table: an ordinary route (same schemas, same pipeline, same OpenAPI) plus
 * the license feature that gates it. `feature` absent: not gated (the license routes themselves). Its own file,
 * so the files of each family's rows (audit, compliance, history) and the table that gathers them (routes.ts)
 * all import it without importing each other.
 */
export interface EnterpriseRouteDef extends RouteDef {
  feature?: 'audit' | 'compliance' | 'categories' | 'views' | 'secrets';
  /** The family of §8 the row serves (where the OSS build answers 402 or 404). */
  family: EnterpriseFamilyName;
  operation?: EnterpriseOperationId;
}
