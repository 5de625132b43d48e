import policyText from './builtin-policy.csv';

/** The built-in lines of `builtin-policy.csv`: `p` lines as `[sub, obj, act, eft]`, `g` edges as `[sub, role]`. */
export function builtinPolicy(text: string = policyText): { policies: string[][]; grouping: [string, string][] } {
  const policies: string[][] = [];
  const grouping: [string, string][] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [kind, ...fields] = line.split(',').map((f) => f.trim());
    if (kind === 'p' && fields.length === 4) policies.push(fields);
    else if (kind === 'g' && fields.length === 2) grouping.push([fields[0]!, fields[1]!]);
    else throw new Error(`builtin-policy.csv: cannot read "${line}"`);
  }
  return { policies, grouping };
}
