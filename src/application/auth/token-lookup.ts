import type { AccessTokenVerifier, VerifiedAccessToken } from '../ports/access-token-verifier.port';
import type { RefreshToken, RefreshTokenStore } from '../ports/refresh-token-store.port';
import type { SecretTokens } from '../ports/secret-tokens.port';
import type { UserRepository } from '../ports/user-repository.port';
import type { User } from '../../domain/users/user';
import { familyOfToken } from './refresh-token-format';

/** Opaque refresh tokens are 75 characters of base64url (43 before refresh-token-format.ts); anything else is looked up nowhere. */
const REFRESH_TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
/** Longer than any token of ours (an access token is well under 2 KiB). */
const MAX_TOKEN = 16384;
/** An access token is a JWT: three base64url parts. The form of a token tells its type, whatever the hint says. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What a presented token turned out to be (RFC 7009 and RFC 7662 take any token; the server finds out which). */
export type FoundToken =
  | { kind: 'access'; claims: VerifiedAccessToken }
  | { kind: 'refresh'; record: RefreshToken }
  | { kind: 'none' };

export interface TokenLookupDeps {
  accessTokenVerifier: AccessTokenVerifier;
  refreshTokenStore: RefreshTokenStore;
  secretTokens: SecretTokens;
  userRepository: UserRepository;
}

/**
 * Finds a token by its form: a JWT is verified as the bearer authentication verifies it (a bad signature,
 * another issuer or audience, an expired one: none), anything else is looked up among the refresh tokens by
 * its SHA-256. Shared by introspection and revocation, so they cannot disagree on what a token is.
 */
export async function findToken(deps: TokenLookupDeps, token: string): Promise<FoundToken> {
  if (token.length > MAX_TOKEN) return { kind: 'none' };
  if (JWT_SHAPE.test(token)) {
    const claims = await deps.accessTokenVerifier.verify(token);
    return claims ? { kind: 'access', claims } : { kind: 'none' };
  }
  if (!REFRESH_TOKEN_SHAPE.test(token)) return { kind: 'none' };
  const record = await deps.refreshTokenStore.findByHash(deps.secretTokens.hash(token));
  return record ? { kind: 'refresh', record } : { kind: 'none' };
}

/**
 * For a token no row holds: the newest token of the family it names, when that family's tokens name it (a used token
 * whose row went after its use: refresh-token-format.ts); null for a token naming no family, or one no such token has.
 */
export async function newestOfNamedFamily(store: RefreshTokenStore, token: string): Promise<RefreshToken | null> {
  const familyId = familyOfToken(token);
  const newest = familyId === null ? null : await store.findNewestOfFamily(familyId);
  return newest?.familyInToken ? newest : null;
}

/**
 * The user a user's token (access or refresh) speaks for, read now from the database: still joined and
 * active, at the token's token version (no sign-out, password change, deactivation or deletion since).
 * Null otherwise. Read directly, never through a cache another replica could not invalidate.
 */
export async function currentUser(users: UserRepository, userId: string, tokenVersion: number): Promise<User | null> {
  const user = await users.findById(userId);
  if (!user || !user.isJoined || user.status !== 'active' || user.tokenVersion !== tokenVersion) return null;
  return user;
}

/** A refresh token that an exchange would take now (as RefreshSessionUseCase checks it, before its user). */
export function isUsable(record: RefreshToken, now: Date): boolean {
  return record.revokedAt === null && record.usedAt === null && record.expiresAt > now && record.idleExpiresAt > now;
}
