import type { Clock } from '../../../src/application/ports/clock.port';
import type { IssuedToken, ServiceTokenRequest, TokenIssuer } from '../../../src/application/ports/token-issuer.port';
import { ioBoundary } from './io-boundary';

/** Opaque, distinct tokens; every issue is recorded with its subject. */
export class FakeTokenIssuer implements TokenIssuer {
  readonly issued: { subject: string; tokenVersion: number; token: string; expiresAt: Date; enrollmentOnly?: boolean }[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds = 900,
  ) {}

  async issue(subject: string, tokenVersion: number, options: { enrollmentOnly?: boolean } = {}): Promise<IssuedToken> {
    await ioBoundary();
    const token = `fake-token.${subject}.${this.issued.length + 1}`;
    const issuedAt = this.clock.now();
    const expiresAt = new Date(issuedAt.getTime() + this.ttlSeconds * 1000);
    this.issued.push({ subject, tokenVersion, token, expiresAt, ...(options.enrollmentOnly ? { enrollmentOnly: true } : {}) });
    return { token, issuedAt, expiresAt };
  }

  readonly serviceTokens: (ServiceTokenRequest & { token: string; expiresAt: Date })[] = [];

  async issueServiceToken(request: ServiceTokenRequest): Promise<IssuedToken> {
    await ioBoundary();
    const token = `fake-service-token.${request.subject}.${this.serviceTokens.length + 1}`;
    const issuedAt = this.clock.now();
    const expiresAt = new Date(issuedAt.getTime() + this.ttlSeconds * 1000);
    this.serviceTokens.push({ ...request, scope: [...request.scope], token, expiresAt });
    return { token, issuedAt, expiresAt };
  }
}
