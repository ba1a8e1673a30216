import type { Clock } from '../../../../src/application/ports/clock.port';
import { IssueServiceTokenUseCase } from '../../../../src/application/service-accounts/issue-service-token.use-case';
import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryServiceAccountRepository } from '../../../support/fakes/in-memory-service-account.repository';
import { RoleMother } from '../../../support/mothers/role.mother';

const READER = RoleMother.withPermissions('reader', ['users:read']);

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
    expect(performance.now() - before).toBeLessThan(50);
    // Another replica's clock ten seconds ahead set it: the grant gives up waiting after a second.
    before = performance.now();
    await issue(SECOND + 10);
    const waited = performance.now() - before;
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(1300);
  });
});
