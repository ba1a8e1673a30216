import { type Passkey, WEBAUTHN_CHALLENGE_TTL_SECONDS, type WebAuthnCeremony } from '../../domain/mfa/passkey';
import type { Clock } from '../ports/clock.port';
import type { MfaStore } from '../ports/mfa-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { RegisteredCredential, WebAuthn, WebAuthnOptions } from '../ports/webauthn.port';

export type AssertionCheck = { ok: true; passkey: Passkey } | { ok: false; why: string };

/**
 * The two WebAuthn ceremonies' bookkeeping (#24): every challenge handed out is stored (its hash, its user, its
 * ceremony, five minutes) in the database every replica reads, and a response is checked only against a challenge
 * taken from there, which takes it for good: one response per challenge, whether it verifies or not.
 */
export class PasskeyCeremonies {
  private readonly store: MfaStore;
  private readonly webAuthn: WebAuthn;
  private readonly secrets: SecretTokens;
  private readonly clock: Clock;

  constructor(deps: { mfaStore: MfaStore; webAuthn: WebAuthn; secretTokens: SecretTokens; clock: Clock }) {
    this.store = deps.mfaStore;
    this.webAuthn = deps.webAuthn;
    this.secrets = deps.secretTokens;
    this.clock = deps.clock;
  }

  /** Creation options for the user (its passkeys excluded), their challenge stored. */
  async registrationOptions(user: { id: string; name: string; displayName: string }, passkeys: readonly Passkey[]): Promise<Record<string, unknown>> {
    return this.issue(user.id, 'registration', await this.webAuthn.registrationOptions(user, passkeys));
  }

  /** Request options for the user's passkeys, their challenge stored; null when it holds none. */
  async signInOptions(userId: string, passkeys?: readonly Passkey[]): Promise<Record<string, unknown> | null> {
    const allowed = passkeys ?? (await this.store.passkeysOf(userId));
    if (allowed.length === 0) return null;
    return this.issue(userId, 'authentication', await this.webAuthn.authenticationOptions(allowed));
  }

  /** The credential a registration response creates, when it answers a challenge of the user's; null otherwise. */
  async verifyRegistration(userId: string, response: unknown): Promise<RegisteredCredential | null> {
    const challenge = await this.take(userId, 'registration', response);
    return challenge ? this.webAuthn.verifyRegistration(response, challenge) : null;
  }

  /**
   * An assertion of one of the user's passkeys answering a challenge of the user's: its counter advanced (stored
   * atomically, so of two replicas verifying one assertion, one wins), or why it is refused. `record` false (the
   * ticket of a wrong password): verified the same way, its challenge taken, but the counter and last use left alone.
   */
  async verifyAssertion(userId: string, response: unknown, { record = true }: { record?: boolean } = {}): Promise<AssertionCheck> {
    const credentialId = this.webAuthn.credentialIdOf(response);
    const passkey = credentialId ? (await this.store.passkeysOf(userId)).find((p) => p.credentialId === credentialId) : undefined;
    if (!passkey) return { ok: false, why: 'unknown_passkey' };
    const challenge = await this.take(userId, 'authentication', response);
    if (!challenge) return { ok: false, why: 'unknown_challenge' };
    const outcome = await this.webAuthn.verifyAuthentication(response, challenge, passkey);
    if (!outcome.ok) return { ok: false, why: outcome.reason };
    if (!record) return { ok: false, why: 'not_recorded' };
    if (!(await this.store.usePasskey(passkey.id, outcome.counter, this.clock.now()))) return { ok: false, why: 'counter_regressed' };
    return { ok: true, passkey };
  }

  private async issue(userId: string, ceremony: WebAuthnCeremony, { options, challenge }: WebAuthnOptions): Promise<Record<string, unknown>> {
    const now = this.clock.now();
    await this.store.addWebAuthnChallenge({
      challengeHash: this.hash(challenge),
      userId,
      ceremony,
      createdAt: now,
      expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
    });
    return options;
  }

  /** The response's challenge, when it is the user's, of this ceremony, unexpired and not taken yet (then taken). */
  private async take(userId: string, ceremony: WebAuthnCeremony, response: unknown): Promise<string | null> {
    const challenge = this.webAuthn.challengeOf(response);
    if (!challenge || challenge.length > 512) return null;
    return (await this.store.takeWebAuthnChallenge(this.hash(challenge), userId, ceremony, this.clock.now())) ? challenge : null;
  }

  private hash(challenge: string): string {
    return this.secrets.hash(`webauthn:${challenge}`);
  }
}
