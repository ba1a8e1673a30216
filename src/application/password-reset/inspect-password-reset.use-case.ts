import { singleUseTokenStatus, type SingleUseTokenStatus } from '../../domain/shared/single-use-token';
import type { Clock } from '../ports/clock.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UnitOfWork } from '../ports/unit-of-work.port';

export type PasswordResetView = { status: 'unknown' } | { status: SingleUseTokenStatus; email: string; expiresAt: Date };

/** What the page behind a reset link shows. Reading consumes nothing (mail scanners open links). */
export class InspectPasswordResetUseCase {
  private readonly unitOfWork: UnitOfWork;
  private readonly tokens: SecretTokens;
  private readonly clock: Clock;

  constructor(deps: { unitOfWork: UnitOfWork; secretTokens: SecretTokens; clock: Clock }) {
    this.unitOfWork = deps.unitOfWork;
    this.tokens = deps.secretTokens;
    this.clock = deps.clock;
  }

  async execute(token: string): Promise<PasswordResetView> {
    if (token.length === 0 || token.length > 200) return { status: 'unknown' };
    const tokenHash = this.tokens.hash(token);
    return this.unitOfWork.run(async ({ passwordResets, users }) => {
      const reset = await passwordResets.findByTokenHash(tokenHash);
      const user = reset ? await users.findById(reset.userId) : null;
      if (!reset || !user || user.status !== 'active') return { status: 'unknown' as const };
      return { status: singleUseTokenStatus(reset, this.clock.now()), email: user.email, expiresAt: reset.expiresAt };
    });
  }
}
