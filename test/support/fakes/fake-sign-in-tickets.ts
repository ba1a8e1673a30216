import type { SignInTicketClaims, SignInTickets } from '../../../src/application/ports/sign-in-tickets.port';

/**
 * Sign-in tickets without cryptography: each issued ticket is a numbered token whose claims this fake remembers, so
 * only a ticket it issued opens, unchanged. The sealing itself is the adapter's (SealedSignInTickets) and its tests'.
 */
export class FakeSignInTickets implements SignInTickets {
  private readonly issued = new Map<string, SignInTicketClaims>();

  issue(claims: SignInTicketClaims): string {
    const token = `fake-ticket-${this.issued.size + 1}`;
    this.issued.set(token, { ...claims });
    return token;
  }

  open(token: string): SignInTicketClaims | null {
    const claims = this.issued.get(token);
    return claims ? { ...claims } : null;
  }
}
