import { MFA_CHALLENGE_TTL_SECONDS, isConfirmed } from '../../domain/mfa/mfa';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import { MfaRequiredError, type MfaMethod } from './mfa.errors';

/**
 * The password step's gate for a user with a factor: instead of a session, a short-lived single-use ticket
 * (stored as its hash) for `POST /v1/auth/signin/mfa`, and the methods that can complete it.
 */
export class MfaChallenges {
  private readonly store: MfaStore;
  private readonly secrets: SecretTokens;
  private readonly clock: Clock;

  constructor(deps: { mfaStore: MfaStore; secretTokens: SecretTokens; clock: Clock }) {
    this.store = deps.mfaStore;
    this.secrets = deps.secretTokens;
    this.clock = deps.clock;
  }

  /** The methods that complete the user's sign-in when it holds a confirmed factor; null when it holds none. */
  async methodsFor(userId: string): Promise<MfaMethod[] | null> {
    const factors = (await this.store.factorsOf(userId)).filter(isConfirmed);
    if (factors.length === 0) return null;
    const methods: MfaMethod[] = [...new Set(factors.map((f) => f.type))];
    if ((await this.store.remainingRecoveryCodes(userId)) > 0) methods.push('recovery_code');
    return methods;
  }

  /** Stores a new ticket for the second step and throws MfaRequiredError carrying it. */
  async demand(userId: string, methods: readonly MfaMethod[]): Promise<never> {
    const now = this.clock.now();
    const { token, hash } = this.secrets.generate();
    await this.store.addChallenge({
      tokenHash: hash,
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + MFA_CHALLENGE_TTL_SECONDS * 1000),
      usedAt: null,
    });
    throw new MfaRequiredError(token, methods, MFA_CHALLENGE_TTL_SECONDS);
  }
}
