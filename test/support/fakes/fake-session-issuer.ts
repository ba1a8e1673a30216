import { type RefreshTokenPolicy, SessionIssuer } from '../../../src/application/auth/session-issuer';
import type { Clock } from '../../../src/application/ports/clock.port';
import type { TokenIssuer } from '../../../src/application/ports/token-issuer.port';
import { FakeSecretTokens } from './fake-secret-tokens';
import { InMemoryRefreshTokenStore } from './in-memory-refresh-token.store';
import { SequentialIdGenerator } from './sequential-id-generator';

export const REFRESH_POLICY: RefreshTokenPolicy = { absoluteTtlSeconds: 30 * 86_400, idleTtlSeconds: 7 * 86_400, reuseGraceSeconds: 0 };

/** The real SessionIssuer on in-memory refresh tokens, for use cases that start sessions (sign-in, a password change). */
export function fakeSessionIssuer(
  tokenIssuer: TokenIssuer,
  clock: Clock,
  options: { store?: InMemoryRefreshTokenStore; secrets?: FakeSecretTokens; policy?: RefreshTokenPolicy } = {},
) {
  const refreshTokenStore = options.store ?? new InMemoryRefreshTokenStore();
  const secretTokens = options.secrets ?? new FakeSecretTokens('fake-refresh-token');
  const sessionIssuer = new SessionIssuer({
    tokenIssuer,
    refreshTokenStore,
    secretTokens,
    idGenerator: new SequentialIdGenerator(0xf),
    clock,
    refreshTokenPolicy: options.policy ?? REFRESH_POLICY,
  });
  return { sessionIssuer, refreshTokenStore, secretTokens };
}
