import { describe, expect, it } from 'vitest';
import {
  InstanceListQuery, LabelSelector, LabelSelectorError, MAX_LABEL_REQUIREMENTS, RgdListQuery, matchesLabelSelector, parseLabelSelector,
} from '../src/index.js';

const matches = (selector: string, labels: Record<string, string>) => matchesLabelSelector(parseLabelSelector(selector), labels);
const problem = (selector: string) => {
  try {
    parseLabelSelector(selector);
  } catch (e) {
    expect(e).toBeInstanceOf(LabelSelectorError);
    return (e as Error).message;
  }
  throw new Error(`"${selector}" parsed`);
};

describe('parseLabelSelector reads the forms kubectl -l accepts', () => {
  it.each([
    ['env=prod', [{ key: 'env', operator: 'equals', values: ['prod'] }]],
    ['env==prod', [{ key: 'env', operator: 'equals', values: ['prod'] }]],
    ['env!=prod', [{ key: 'env', operator: 'notEquals', values: ['prod'] }]],
    ['env=', [{ key: 'env', operator: 'equals', values: [''] }]],
    ['tier in (web, api)', [{ key: 'tier', operator: 'in', values: ['web', 'api'] }]],
    ['tier notin (web)', [{ key: 'tier', operator: 'notIn', values: ['web'] }]],
    ['tier in (web,)', [{ key: 'tier', operator: 'in', values: ['web', ''] }]],
    ['team', [{ key: 'team', operator: 'exists', values: [] }]],
    ['!legacy', [{ key: 'legacy', operator: 'doesNotExist', values: [] }]],
    ['app.kubernetes.io/name=shop', [{ key: 'app.kubernetes.io/name', operator: 'equals', values: ['shop'] }]],
    [
      ' env = prod , tier in (web,api),!legacy ',
      [
        { key: 'env', operator: 'equals', values: ['prod'] },
        { key: 'tier', operator: 'in', values: ['web', 'api'] },
        { key: 'legacy', operator: 'doesNotExist', values: [] },
      ],
    ],
  ])('%s', (selector, requirements) => {
    expect(parseLabelSelector(selector)).toEqual(requirements);
  });

  it('reads the empty selector (and one of blanks) as no requirement at all', () => {
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('   ')).toEqual([]);
  });

  it('accepts keys and values at the length Kubernetes allows', () => {
    const name = 'a'.repeat(63);
    expect(parseLabelSelector(`${'p'.repeat(200)}.example/${name}=${name}`)).toHaveLength(1);
  });
});

describe('parseLabelSelector refuses what Kubernetes refuses, quoting the requirement at fault', () => {
  it.each([
    ['a in x', '"a in x": expected "(" after "in"'],
    ['a notin x', '"a notin x": expected "(" after "notin"'],
    ['a in', '"a in": expected "(" after "in"'],
    ['a in ()', '"a in ()": "in" needs at least one value'],
    ['a in (x', '"a in (x": missing ")" after the values of "in"'],
    ['a in (x y)', '"a in (x y)": expected "," or ")" in the values of "in", got "y"'],
    ['env=prod,a b', '"a b": expected "=", "==", "!=", "in" or "notin" after the key "a", got "b"'],
    ['a=b=c', '"a=b=c": expected "," or the end after the requirement, got "="'],
    ['a=(b)', '"a=(b)": expected a value or the end of the requirement, got "("'],
    ['!a=b', '"!a=b": expected "," or the end after the requirement, got "="'],
    ['=b', '"=b": expected a label key, got "="'],
    ['!', '"!": expected a label key, got the end'],
    ['a>1', '"a>1": the operator ">" is not supported (use =, ==, !=, in, notin, key or !key)'],
    ['x=1,a<1', '"a<1": the operator "<" is not supported (use =, ==, !=, in, notin, key or !key)'],
    [',a', '",a": empty requirement (a comma at the start, at the end or after another comma)'],
    ['a,', '"a,": empty requirement (a comma at the start, at the end or after another comma)'],
    ['a,,b', '"a,,b": empty requirement (a comma at the start, at the end or after another comma)'],
  ])('%s', (selector, message) => {
    expect(problem(selector)).toBe(message);
  });

  it.each([
    ['-env=a', '"-env=a": label key "-env": the name must be at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between'],
    [`${'k'.repeat(64)}`, `"${'k'.repeat(64)}": label key "${'k'.repeat(64)}": the name must be at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between`],
    ['Example.com/a=b', '"Example.com/a=b": label key "Example.com/a": the prefix must be a DNS subdomain (lower-case letters, digits, "-" and ".", at most 253 characters)'],
    [`${'p'.repeat(254)}/a`, `"${'p'.repeat(254)}/a": label key "${'p'.repeat(254)}/a": the prefix must be a DNS subdomain (lower-case letters, digits, "-" and ".", at most 253 characters)`],
    ['/a=b', '"/a=b": label key "/a" has an empty prefix before "/"'],
    ['example.com/=b', '"example.com/=b": label key "example.com/" has no name'],
    ['a/b/c=d', '"a/b/c=d": label key "a/b/c": the name must be at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between'],
  ])('a bad key: %s', (selector, message) => {
    expect(problem(selector)).toBe(message);
  });

  it.each([
    ['env=prod-', '"env=prod-": label value "prod-" must be empty or at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between'],
    ['env in (a,b;c)', '"env in (a,b;c)": label value "b;c" must be empty or at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between'],
    [`env=${'v'.repeat(64)}`, `"env=${'v'.repeat(64)}": label value "${'v'.repeat(64)}" must be empty or at most 63 characters, alphanumeric at both ends, with only letters, digits, "-", "_" and "." between`],
  ])('a bad value: %s', (selector, message) => {
    expect(problem(selector)).toBe(message);
  });

  it(`refuses more than ${MAX_LABEL_REQUIREMENTS} requirements and more than 1024 characters`, () => {
    const keys = Array.from({ length: MAX_LABEL_REQUIREMENTS + 1 }, (_, i) => `k${i}`);
    expect(parseLabelSelector(keys.slice(0, -1).join(','))).toHaveLength(MAX_LABEL_REQUIREMENTS);
    expect(problem(keys.join(','))).toBe(`"k${MAX_LABEL_REQUIREMENTS}": at most ${MAX_LABEL_REQUIREMENTS} requirements`);
    expect(problem(`a in (${'x,'.repeat(600)}x)`)).toBe('must be at most 1024 characters');
  });
});

describe('matchesLabelSelector holds labels to every requirement, as Kubernetes does', () => {
  const labels = { env: 'prod', tier: 'web', 'app.kubernetes.io/name': 'shop' };
  it.each([
    ['env=prod', true],
    ['env=dev', false],
    ['env==prod', true],
    ['env!=dev', true],
    ['env!=prod', false],
    ['missing!=x', true],
    ['tier in (web,api)', true],
    ['tier in (api)', false],
    ['missing in (x)', false],
    ['tier notin (api)', true],
    ['tier notin (web)', false],
    ['missing notin (x)', true],
    ['env', true],
    ['missing', false],
    ['!missing', true],
    ['!env', false],
    ['app.kubernetes.io/name=shop', true],
    ['env=prod,tier=web', true],
    ['env=prod,tier=api', false],
    ['', true],
    ['constructor', false],
  ])('%s → %s', (selector, expected) => {
    expect(matches(selector, labels)).toBe(expected);
  });

  it('matches the empty value only for a label that is present and empty', () => {
    expect(matches('env=', { env: '' })).toBe(true);
    expect(matches('env=', {})).toBe(false);
  });
});

describe('the labelSelector query parameter', () => {
  it.each([
    ['InstanceListQuery', InstanceListQuery],
    ['RgdListQuery', RgdListQuery],
  ] as const)('of %s keeps a valid selector as text and refuses a bad one with the parser message, on labelSelector', (_, schema) => {
    expect(schema.parse({ labelSelector: 'env in (prod)' }).labelSelector).toBe('env in (prod)');
    const result = schema.safeParse({ labelSelector: 'a in x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['labelSelector'], message: '"a in x": expected "(" after "in"' })]);
  });

  it('names the length limit before parsing a selector that is too long', () => {
    const result = LabelSelector.safeParse(`a=${'b'.repeat(1100)}`);
    expect(result.error?.issues[0]?.message).toBe('must be at most 1024 characters');
  });
});
