import { LabelSelectorError, parseLabelSelector, type LabelRequirement } from '@portico/api';
import { PorticoError } from './errors.js';

/**
 * The requirements of a list query's `labelSelector`, none for an absent or blank one. The server has already
 * refused a bad selector; a library caller gets the same 400, naming the parameter, rather than a list that
 * silently ignores it.
 */
export function labelRequirements(selector: string | undefined): LabelRequirement[] | undefined {
  if (selector === undefined || selector.trim() === '') return undefined;
  try {
    return parseLabelSelector(selector);
  } catch (e) {
    if (!(e instanceof LabelSelectorError)) throw e;
    throw new PorticoError('VALIDATION_FAILED', `invalid query parameter "labelSelector": ${e.message}`, { fields: { labelSelector: e.message }, in: 'query' });
  }
}
