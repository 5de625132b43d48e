import { z } from 'zod';

/**
 * Kubernetes label selectors (`env=prod,tier in (web,api),!legacy`), parsed and matched the way kubectl and the
 * API server read them, so a selector a user already types for `kubectl get -l` means the same here. The server
 * filters lists with it and the CLI filters live events with the same code.
 */

export type LabelOperator = 'equals' | 'notEquals' | 'in' | 'notIn' | 'exists' | 'doesNotExist';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** One value for equals/notEquals, one or more for in/notIn, none for exists/doesNotExist. */
  values: string[];
}

/** Longer selectors are refused before parsing: a list filter is a few requirements, not a document. */
export const MAX_LABEL_SELECTOR_LENGTH = 1024;
export const MAX_LABEL_REQUIREMENTS = 20;

/** A selector that does not parse; the message quotes the requirement at fault and says what is wrong. */
export class LabelSelectorError extends Error {
  override name = 'LabelSelectorError';
}

const labelName = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const dnsLabel = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dnsSubdomain = new RegExp(`^${dnsLabel}(\\.${dnsLabel})*$`);
const nameRule = 'at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between';

/** What is wrong with a label key, or undefined when Kubernetes would accept it. */
function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix === '') return `label key "${key}" has an empty prefix before "/"`;
    if (prefix.length > 253 || !dnsSubdomain.test(prefix)) return `label key "${key}": the prefix must be a DNS subdomain (lower-case letters, digits, "-" and ".", at most 253 characters)`;
  }
  if (name === '') return `label key "${key}" has no name`;
  if (name.length > 63 || !labelName.test(name)) return `label key "${key}": the name must be ${nameRule}`;
  return undefined;
}

/** What is wrong with a label value, or undefined when Kubernetes would accept it (the empty value is one). */
function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63 || !labelName.test(value)) return `label value "${value}" must be empty or ${nameRule}`;
  return undefined;
}

type Token = { kind: 'word'; text: string; at: number } | { kind: 'symbol'; text: '!' | '=' | '==' | '!=' | '(' | ')' | ','; at: number };

/** Characters that end a word; `<` and `>` are Kubernetes' numeric operators, which are refused by name. */
const symbolChars = new Set(['!', '=', '(', ')', ',', '<', '>']);

function tokenize(text: string, fail: (at: number, message: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '<' || c === '>') {
      fail(i, `the operator "${c}" is not supported (use =, ==, !=, in, notin, key or !key)`);
    } else if (c === '=' || c === '!') {
      const two = text[i + 1] === '=';
      tokens.push({ kind: 'symbol', text: two ? (c === '=' ? '==' : '!=') : c, at: i });
      i += two ? 2 : 1;
    } else if (symbolChars.has(c)) {
      tokens.push({ kind: 'symbol', text: c as '(' | ')' | ',', at: i });
      i++;
    } else {
      const start = i;
      while (i < text.length && !symbolChars.has(text[i]!) && !/\s/.test(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i), at: start });
    }
  }
  return tokens;
}

/** The requirement around position `at`: between the commas outside parentheses on either side, for error messages. */
function requirementAround(text: string, at: number): string {
  let depth = 0;
  let start = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      if (i >= at) break;
      start = i + 1;
    }
  }
  return text.slice(start, i).trim();
}

const shown = (t: Token | undefined) => (t ? `"${t.text}"` : 'the end');

/**
 * Parses a selector into requirements, all of which must hold (comma is AND). The empty selector has none and
 * matches everything. Throws LabelSelectorError naming the requirement at fault.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  if (text.length > MAX_LABEL_SELECTOR_LENGTH) throw new LabelSelectorError(`must be at most ${MAX_LABEL_SELECTOR_LENGTH} characters`);
  const fail = (at: number, message: string): never => {
    throw new LabelSelectorError(`"${requirementAround(text, at)}": ${message}`);
  };
  const empty = (): never => {
    throw new LabelSelectorError(`"${text}": empty requirement (a comma at the start, at the end or after another comma)`);
  };
  const tokens = tokenize(text, fail);
  const requirements: LabelRequirement[] = [];
  if (tokens.length === 0) return requirements;
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  const isSymbol = (t: Token | undefined, s: string) => t?.kind === 'symbol' && t.text === s;

  const key = (): string => {
    const t = next();
    if (t?.kind !== 'word') return fail(t?.at ?? text.length, `expected a label key, got ${shown(t)}`);
    const problem = labelKeyProblem(t.text);
    return problem ? fail(t.at, problem) : t.text;
  };
  const value = (t: Token): string => {
    const problem = labelValueProblem(t.text);
    return problem ? fail(t.at, problem) : t.text;
  };
  /** `= v`: the value may be empty (`env=` matches the label with the empty value). */
  const equalityValue = (): string => {
    const t = peek();
    if (t === undefined || isSymbol(t, ',')) return '';
    if (t.kind !== 'word') return fail(t.at, `expected a value or the end of the requirement, got ${shown(t)}`);
    pos++;
    return value(t);
  };
  const valueSet = (operator: string): string[] => {
    const open = next();
    if (!isSymbol(open, '(')) return fail(open?.at ?? text.length, `expected "(" after "${operator}"`);
    const values: string[] = [];
    if (isSymbol(peek(), ')')) return fail(peek()!.at, `"${operator}" needs at least one value`);
    for (;;) {
      const t = peek();
      if (t?.kind === 'word') {
        pos++;
        values.push(value(t));
      } else values.push('');
      const after = next();
      if (isSymbol(after, ')')) return values;
      if (!isSymbol(after, ',')) return fail(after?.at ?? text.length, after ? `expected "," or ")" in the values of "${operator}", got ${shown(after)}` : `missing ")" after the values of "${operator}"`);
    }
  };

  for (;;) {
    const first = peek()!;
    if (isSymbol(first, ',')) empty();
    if (requirements.length === MAX_LABEL_REQUIREMENTS) fail(first.at, `at most ${MAX_LABEL_REQUIREMENTS} requirements`);
    if (isSymbol(first, '!')) {
      pos++;
      requirements.push({ key: key(), operator: 'doesNotExist', values: [] });
    } else {
      const k = key();
      const op = peek();
      if (op === undefined || isSymbol(op, ',')) requirements.push({ key: k, operator: 'exists', values: [] });
      else if (isSymbol(op, '=') || isSymbol(op, '==') || isSymbol(op, '!=')) {
        pos++;
        requirements.push({ key: k, operator: op.text === '!=' ? 'notEquals' : 'equals', values: [equalityValue()] });
      } else if (op.kind === 'word' && (op.text === 'in' || op.text === 'notin')) {
        pos++;
        requirements.push({ key: k, operator: op.text === 'in' ? 'in' : 'notIn', values: valueSet(op.text) });
      } else fail(op.at, `expected "=", "==", "!=", "in" or "notin" after the key "${k}", got ${shown(op)}`);
    }
    const end = next();
    if (end === undefined) return requirements;
    if (!isSymbol(end, ',')) fail(end.at, `expected "," or the end after the requirement, got ${shown(end)}`);
    if (peek() === undefined) empty();
  }
}

/** Whether `labels` satisfy every requirement; a label absent satisfies `!=` and `notin`, as in Kubernetes. */
export function matchesLabelSelector(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  return requirements.every(({ key, operator, values }) => {
    const has = labels !== undefined && Object.hasOwn(labels, key);
    switch (operator) {
      case 'exists':
        return has;
      case 'doesNotExist':
        return !has;
      case 'equals':
      case 'in':
        return has && values.includes(labels[key]!);
      case 'notEquals':
      case 'notIn':
        return !has || !values.includes(labels[key]!);
    }
  });
}

/** The `labelSelector` query parameter: the selector's text, refused with the parser's message when it does not parse. */
export const LabelSelector = z
  .string()
  .max(MAX_LABEL_SELECTOR_LENGTH, `must be at most ${MAX_LABEL_SELECTOR_LENGTH} characters`)
  .superRefine((text, ctx) => {
    try {
      parseLabelSelector(text);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  })
  .describe(
    'Kubernetes label selector: key=value, key==value, key!=value, key in (a,b), key notin (a,b), key, !key; comma means AND',
  );
