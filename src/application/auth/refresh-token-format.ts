/**
 * A refresh token names its family: the family id's 32 hex digits, then the secret (43 characters of base64url, 256
 * random bits), 75 characters in all, URL-safe as before. Only the whole token's SHA-256 is stored. The family in the
 * token lets its used rows go (RefreshTokenStore.rotate's `forgetUsedBefore`) while a reuse is still caught: a token
 * of ours whose row is gone but whose family lives is a used token presented again. A family id is no secret of its
 * own, but nothing shows it outside its tokens (no answer, event, log line or audit entry), and its 74 random bits
 * are not guessed: a token naming a live family comes from someone who held one of its tokens, which is what a
 * reuse is. Tokens issued before (43 characters) name no family and are found by their row alone.
 */
const NAMES_FAMILY = /^([0-9a-f]{32})[A-Za-z0-9_-]{43}$/;
const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

/** The token of `secret` in the family `familyId` (a UUID, as every id here). */
export function familyToken(familyId: string, secret: string): string {
  if (!UUID.test(familyId)) throw new Error(`a refresh token family id must be a lower-case UUID, not ${familyId}`);
  return familyId.replaceAll('-', '') + secret;
}

/** The family a token names, or null for one that names none (an earlier version's, or not one of ours). */
export function familyOfToken(token: string): string | null {
  const hex = NAMES_FAMILY.exec(token)?.[1];
  if (hex === undefined) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
