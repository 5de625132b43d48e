import { describe, expect, it } from 'vitest';
import { applySets, parseScalar, splitKeyPath, CliError } from '../src/index.js';

describe('--set parsing', () => {
  it('builds nested values with typed scalars', () => {
    expect(applySets({}, ['a.b=3', 'a.c=true', 'name=db', 'ratio=0.5', 'off=false', 'none=null'])).toEqual({
      a: { b: 3, c: true },
      name: 'db',
      ratio: 0.5,
      off: false,
      none: null,
    });
  });

  it('keeps --set-string values as text', () => {
    expect(applySets({}, [], ['version=15', 'enabled=true'])).toEqual({ version: '15', enabled: 'true' });
  });

  it('merges onto values from a file, --set winning', () => {
    const base = { storage: { size: '1Gi', class: 'fast' }, replicas: 1 };
    const out = applySets(base, ['storage.size=10Gi', 'replicas=3']);
    expect(out).toEqual({ storage: { size: '10Gi', class: 'fast' }, replicas: 3 });
    expect(base.replicas).toBe(1); // the input is not changed
  });

  it('keeps what is not clearly a number as a string', () => {
    expect(parseScalar('007')).toBe('007');
    expect(parseScalar('1.2.3')).toBe('1.2.3');
    expect(parseScalar('12345678901234567890')).toBe('12345678901234567890');
    expect(parseScalar('-4')).toBe(-4);
    expect(parseScalar('a=b')).toBe('a=b');
  });

  it('reads JSON arrays and objects', () => {
    expect(applySets({}, ['ports=[80,443]', 'labels={"team":"a"}'])).toEqual({ ports: [80, 443], labels: { team: 'a' } });
  });

  it('splits only on unescaped dots and keeps = in values', () => {
    expect(splitKeyPath('annotations.example\\.com/team')).toEqual(['annotations', 'example.com/team']);
    expect(applySets({}, ['cmd=a=b'])).toEqual({ cmd: 'a=b' });
  });

  it('rejects malformed assignments as usage errors', () => {
    for (const bad of ['novalue', '=3', 'a..b=1', '__proto__.x=1']) {
      let err: unknown;
      try {
        applySets({}, [bad]);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(2);
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses to turn a scalar into an object', () => {
    expect(() => applySets({}, ['a=1', 'a.b=2'])).toThrow(/already holds a value/);
  });
});
