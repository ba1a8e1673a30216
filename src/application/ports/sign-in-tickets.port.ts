/** What a sign-in's second-step ticket (mfa_token) carries, sealed: no row stands behind it. */
export interface SignInTicketClaims {
  /** The user the password step found. */
  userId: string;
  /** The account's lockout key (the normalized username the password step claimed). */
  accountKey: string;
  /**
   * When the password step handed it out, in microseconds since the epoch, later for each ticket a process issues
   * (MfaChallenges): its expiry counts from it, and its single use orders by it (ClaimOptions.ticketIssuedAt).
   */
  issuedAtMicros: number;
  /** Whether that password was right: a wrong one's ticket reads the same to its holder, and nothing completes it. */
  passwordMatched: boolean;
  /**
   * The user's token version when the password step ran: a password change or reset, a sign-out everywhere or an
   * admin's reset of the factors since (each moves it on) ends the ticket, as it ends the user's tokens.
   */
  tokenVersion: number;
}

/**
 * Sign-in tickets as sealed tokens (authenticated encryption under a key every replica holds): the password step
 * issues one without a write, and the second step opens it without a read. Its holder can neither read it (a wrong
 * password's ticket looks like a right one's) nor change it. Its single use is kept with the account's lockout
 * counters (LoginAttempts, `ticketIssuedAt`): a completed sign-in uses up every ticket of the account issued up to
 * its own.
 */
export interface SignInTickets {
  issue(claims: SignInTicketClaims): string;
  /** The ticket's claims; null when it is not a ticket sealed with this key (forged, changed, of another form). */
  open(token: string): SignInTicketClaims | null;
}
