import { describe, expect, it } from 'vitest';
import { ctx, rejection, startWorld } from './setup.js';

describe('WebSocket tickets', () => {
  it('redeem once into the same actor; a second redemption fails', async () => {
    const w = await startWorld();
    const actor = await w.auth.verifyToken((await w.adminLogin()).token);
    const { ticket, expiresAt } = await w.auth.issueTicket(actor);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt)).toBe(w.now() + 30_000);

    const redeemed = await w.auth.redeemTicket(ticket);
    expect(redeemed).toEqual(actor);
    expect(redeemed.expiresAt).toBeInstanceOf(Date);
    expect((await rejection(w.auth.redeemTicket(ticket))).code).toBe('UNAUTHORIZED');
  });

  it('each ticket is distinct', async () => {
    const w = await startWorld();
    const actor = await w.auth.verifyToken((await w.adminLogin()).token);
    const a = await w.auth.issueTicket(actor);
    const b = await w.auth.issueTicket(actor);
    expect(a.ticket).not.toBe(b.ticket);
  });

  it('expire after 30 seconds', async () => {
    const w = await startWorld();
    const actor = await w.auth.verifyToken((await w.adminLogin()).token);
    const early = await w.auth.issueTicket(actor);
    const late = await w.auth.issueTicket(actor);
    w.now.advance(29_000);
    await expect(w.auth.redeemTicket(early.ticket)).resolves.toBeDefined();
    w.now.advance(1_000);
    expect((await rejection(w.auth.redeemTicket(late.ticket))).code).toBe('UNAUTHORIZED');
  });

  it('a ticket of a token revoked in the meantime is refused', async () => {
    const w = await startWorld();
    const actor = await w.auth.verifyToken((await w.adminLogin()).token);
    const { ticket } = await w.auth.issueTicket(actor);
    await w.auth.logout(actor);
    expect((await rejection(w.auth.redeemTicket(ticket))).code).toBe('UNAUTHORIZED');
  });

  it('a ticket of a deleted account is refused', async () => {
    const w = await startWorld();
    const admin = await w.auth.verifyToken((await w.adminLogin()).token);
    await w.auth.accounts.create(admin, { username: 'hank', password: 'hank-password', groups: [] });
    const hank = await w.auth.verifyToken((await w.auth.localLogin({ username: 'hank', password: 'hank-password' }, ctx)).token);
    const { ticket } = await w.auth.issueTicket(hank);
    await w.auth.accounts.delete(admin, 'hank');
    expect((await rejection(w.auth.redeemTicket(ticket))).code).toBe('UNAUTHORIZED');
  });

  it('unknown and malformed tickets are refused; a store outage is an outage, not a pass', async () => {
    const w = await startWorld();
    for (const t of ['', 'nope', 'x'.repeat(43), 'ticket:../../x']) expect((await rejection(w.auth.redeemTicket(t))).code).toBe('UNAUTHORIZED');
    const actor = await w.auth.verifyToken((await w.adminLogin()).token);
    const { ticket } = await w.auth.issueTicket(actor);
    w.kv.down = true;
    expect((await rejection(w.auth.redeemTicket(ticket))).code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('single sign-on before OIDC is configured', () => {
  it('offers local sign-in only and refuses the OIDC routes with clear errors', async () => {
    const w = await startWorld();
    expect(w.auth.ssoProviders()).toEqual({ providers: [], options: [], localLoginEnabled: true });
    expect((await rejection(w.auth.oidcLogin({ provider: 'okta' }, ctx))).code).toBe('NOT_FOUND');
    expect(await rejection(w.auth.oidcLogin({}, ctx))).toMatchObject({ code: 'BAD_REQUEST', message: 'no identity provider is configured' });
    expect((await rejection(w.auth.oidcCallback({ code: 'x', state: 'y' }, ctx))).code).toBe('BAD_REQUEST');
    expect((await rejection(w.auth.tokenExchange({ code: 'x' }, ctx))).code).toBe('BAD_REQUEST');
  });
});
