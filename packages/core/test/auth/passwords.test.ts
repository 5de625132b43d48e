import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from '../../src/auth/index.js';

describe('password hashing', () => {
  it('stores a salted scrypt hash, never the password', async () => {
    const a = await hashPassword('s3cret-password');
    const b = await hashPassword('s3cret-password');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('s3cret-password');
    expect(a).not.toBe(b); // random salt
  });

  it('verifies the right password and refuses others', async () => {
    const stored = await hashPassword('s3cret-password');
    expect(await verifyPassword('s3cret-password', stored)).toBe(true);
    expect(await verifyPassword('s3cret-passworD', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('reads the parameters from the stored hash, so they can change later', async () => {
    const cheap = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
    expect(cheap.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await verifyPassword('pw', cheap)).toBe(true);
  });

  it('refuses malformed or absurd stored hashes instead of throwing', async () => {
    expect(await verifyPassword('pw', 'pw')).toBe(false);
    expect(await verifyPassword('pw', 'bcrypt$x')).toBe(false);
    const stored = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
    expect(await verifyPassword('pw', stored.replace('scrypt$1024$', 'scrypt$1073741824$'))).toBe(false);
  });

  it('generates long random passwords', () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{24,}$/);
    expect(generatePassword()).not.toBe(a);
  });
});
