import { describe, expect, it } from 'vitest';
import { retryOnConflict } from '../../src/cluster/retry.js';
import { conflict, notFound } from '../../src/errors.js';

describe('retryOnConflict', () => {
  it('runs again after a CONFLICT and returns the first success', async () => {
    let runs = 0;
    const value = await retryOnConflict(async () => {
      runs += 1;
      if (runs < 3) throw conflict('changed meanwhile');
      return 'written';
    });
    expect({ value, runs }).toEqual({ value: 'written', runs: 3 });
  });

  it('gives up after the attempts, with the last CONFLICT', async () => {
    let runs = 0;
    const failing = retryOnConflict(async () => {
      runs += 1;
      throw conflict(`attempt ${runs}`);
    }, { attempts: 2 });
    await expect(failing).rejects.toMatchObject({ code: 'CONFLICT', message: 'attempt 2' });
    expect(runs).toBe(2);
  });

  it('never retries another error', async () => {
    let runs = 0;
    await expect(retryOnConflict(async () => {
      runs += 1;
      throw notFound('project', 'x');
    })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(runs).toBe(1);
  });
});
