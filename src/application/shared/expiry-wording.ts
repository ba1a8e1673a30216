/** Made once: building a DateTimeFormat costs far more than formatting with it. */
const EXPIRY_FORMAT = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * "Saturday 7 February 2026 at 12:00 UTC": unambiguous for a reader in any time zone. The invitation
 * mail and the page its link opens both say when the link expires with it, so they never disagree.
 */
export function formatExpiry(expiresAt: Date): string {
  const formatted = EXPIRY_FORMAT.format(expiresAt);
  return `${formatted.replace(/,/g, '')} UTC`;
}
