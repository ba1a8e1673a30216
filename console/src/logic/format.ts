/** Dates in the viewer's local time zone and language (the API's are UTC); `<time datetime>` keeps the instant. */
export function localDateTime(iso: string | undefined | null, locale?: string, timeZone?: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', ...(timeZone ? { timeZone } : {}) }).format(date);
}

/** The claims of a JWT, unverified (the server verifies): only to learn whether the token is enrollment-only. */
export function tokenClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const claims: unknown = JSON.parse(json);
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Who a user is, in one line: name, else username, else e-mail (a pending invitee may have no name). */
export function displayName(user: { name?: string; username?: string; email: string }): string {
  return user.name || user.username || user.email;
}
