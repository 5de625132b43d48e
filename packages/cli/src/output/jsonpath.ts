import { JSONPath } from 'jsonpath-plus';
import { usageError } from '../exit-codes.js';

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** `.items[*].name` or `items[0]` (kubectl's spelling) → `$.items[*].name`, the library's. */
function toJsonPath(expression: string): string {
  const e = expression.trim();
  if (e.startsWith('$')) return e;
  return `$${e.startsWith('.') || e.startsWith('[') ? '' : '.'}${e}`;
}

/**
 * `-o jsonpath=TEMPLATE` as kubectl reads it: text with `{expressions}` (an expression alone may leave out the
 * braces), every match printed, several separated by spaces; `{"\n"}` is a literal. `{range}` is not supported.
 */
export function renderJsonPath(template: string, data: unknown): string {
  const braced = template.includes('{') ? template : `{${template}}`;
  const out = braced.replace(/\{([^{}]*)\}/g, (_, expression: string) => {
    const e = expression.trim();
    if (/^".*"$/.test(e)) return JSON.parse(e) as string;
    let results: unknown[];
    try {
      results = JSONPath({ path: toJsonPath(e), json: data as object, wrap: true, eval: 'safe' }) as unknown[];
    } catch (error) {
      throw usageError(`invalid jsonpath "${e}": ${(error as Error).message}`);
    }
    return results.map(text).join(' ');
  });
  return out.endsWith('\n') ? out : `${out}\n`;
}
