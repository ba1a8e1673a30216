import type { Clock } from '../../../../src/application/ports/clock.port';
import { IssueServiceTokenUseCase } from '../../../../src/application/service-accounts/issue-service-token.use-case';
import { InvalidTargetError } from '../../../../src/application/service-accounts/service-token.errors';
import { TokenAudiences } from '../../../../src/application/service-accounts/token-audiences';
import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../../../support/fakes/in-memory-service-account.repository';
import { RoleMother } from '../../../support/mothers/role.mother';

const READER = RoleMother.withPermissions('reader', ['users:read']);
const ISSUER = 'https://ac.example.com/auth';
const ORDERS = 'https://orders.example.com';
const audiences = new TokenAudiences({ issuer: ISSUER, audience: 'access-control', resources: [ORDERS, 'urn:example:billing'] });

/** Real time, from `start`, at `rate` clock milliseconds per real one: at 0.5 every timer lands before the clock's time. */
class RunningClock implements Clock {
  private readonly realStart = performance.now();
  constructor(
    private readonly start: number,
    private readonly rate: number,
  ) {}
  now(): Date {
    return new Date(this.start + (performance.now() - this.realStart) * this.rate);
  }
}

function grant(clock: Clock) {
  const tokens = new FakeTokenIssuer(clock, 600);
  const issue = new IssueServiceTokenUseCase({
    roleRepository: new InMemoryRoleRepository([READER]),
    tokenIssuer: tokens,
    clock,
    auditRecorder: auditRecorderFor({ clock }).auditRecorder,
    serviceAccountCredentialStore: new InMemoryServiceAccountRepository(),
    tokenAudiences: audiences,
  });
  return (tokensValidFrom?: number) =>
    issue.execute({ account: { id: 'sa-1', clientId: 'reports', roleId: READER.id, method: 'client_secret', ...(tokensValidFrom !== undefined ? { tokensValidFrom } : {}) } }).then(() => tokens.serviceTokens.at(-1)!);
}

describe('IssueServiceTokenUseCase: an account enabled again within the second it was disabled in', () => {
  const SECOND = 1_800_000_000;

  it('issues its token in the next second by the clock, even when a timer fires before the clock gets there', async () => {
    // 200 ms before the second turns, on a clock that a timer always outruns (as Node's may by a millisecond).
    const clock = new RunningClock(SECOND * 1000 - 200, 0.5);
    const issue = grant(clock);
    const before = performance.now();
    const token = await issue(SECOND);
    const issuedAt = token.expiresAt.getTime() - 600_000;
    expect(issuedAt).toBeGreaterThanOrEqual(SECOND * 1000);
    // It waited for the second, and not much past it.
    expect(clock.now().getTime() - SECOND * 1000).toBeLessThan(100);
    expect(performance.now() - before).toBeGreaterThanOrEqual(390);
  });

  it('does not wait for an account whose tokens are already valid, nor more than a second for one whose clock is ahead', async () => {
    const clock = new RunningClock(SECOND * 1000 + 5, 1);
    const issue = grant(clock);
    let before = performance.now();
    await issue(SECOND);
    await issue();
    // No wait: well under the second a wait lasts (a loaded CI machine stalled these two calls 236 ms once).
    expect(performance.now() - before).toBeLessThan(500);
    // Another replica's clock ten seconds ahead set it: the grant gives up waiting after a second.
    before = performance.now();
    await issue(SECOND + 10);
    const waited = performance.now() - before;
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(1300);
  });
});

describe('IssueServiceTokenUseCase: a token for another service (RFC 8707 resource)', () => {
  const ACCOUNT = { id: 'sa-1', clientId: 'reports', roleId: READER.id, method: 'client_secret' as const };
  function setup() {
    const clock = new RunningClock(1_800_000_000_000, 1);
    const tokens = new FakeTokenIssuer(clock, 600);
    const { auditRecorder, auditTrail } = auditRecorderFor({ clock });
    const issue = new IssueServiceTokenUseCase({
      roleRepository: new InMemoryRoleRepository([READER]),
      tokenIssuer: tokens,
      clock,
      auditRecorder,
      serviceAccountCredentialStore: new InMemoryServiceAccountRepository(),
      tokenAudiences: audiences,
    });
    return { tokens, auditTrail, issue: (resource?: string, scope?: string) => issue.execute({ account: ACCOUNT, ...(resource !== undefined ? { resource } : {}), ...(scope ? { scope } : {}) }) };
  }

  it('issues a listed resource server its own audience, exactly as listed, and records it in the trail', async () => {
    const { tokens, auditTrail, issue } = setup();
    await issue(ORDERS);
    await issue('urn:example:billing', 'users:read');
    expect(tokens.serviceTokens.map((t) => t.audience)).toEqual([ORDERS, 'urn:example:billing']);
    expect(auditTrail.entries.map((e) => e.changes)).toEqual([
      [{ field: 'scope', before: null, after: ['users:read'] }, { field: 'audience', before: null, after: ORDERS }],
      [{ field: 'scope', before: null, after: ['users:read'] }, { field: 'audience', before: null, after: 'urn:example:billing' }],
    ]);
  });

  it('gives this service’s own audience without a resource, or for its issuer with or without a trailing slash', async () => {
    const { tokens, auditTrail, issue } = setup();
    await issue();
    await issue(ISSUER);
    await issue(`${ISSUER}/`);
    expect(tokens.serviceTokens.map((t) => t.audience)).toEqual([undefined, 'access-control', 'access-control']);
    expect(auditTrail.entries[0]!.changes).toEqual([{ field: 'scope', before: null, after: ['users:read'] }]);
  });

  it('refuses any other resource, a near miss of a listed one included, issuing nothing and auditing the refusal', async () => {
    const { tokens, auditTrail, issue } = setup();
    for (const resource of [`${ORDERS}/`, 'https://ORDERS.example.com', 'https://evil.example', 'access-control', 'https://ac.example.com', '']) {
      await expect(issue(resource)).rejects.toBeInstanceOf(InvalidTargetError);
    }
    expect(tokens.serviceTokens).toEqual([]);
    expect(new Set(auditTrail.entries.map((e) => `${e.action} ${e.outcome} ${e.code}`))).toEqual(new Set(['service_account.token_refused failure invalid_target']));
    expect(auditTrail.entries).toHaveLength(6);
  });
});
