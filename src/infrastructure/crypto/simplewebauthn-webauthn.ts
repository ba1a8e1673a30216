import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AssertionOutcome, PasskeyDescriptor, RegisteredCredential, StoredCredential, WebAuthn, WebAuthnOptions } from '../../application/ports/webauthn.port';

/** What a browser gets to answer: long enough for a person to find the key, short of the challenge's 5 minutes. */
const CEREMONY_TIMEOUT_MS = 120_000;
/** The algorithms asked for: Ed25519, ES256, RS256 (what authenticators ship). */
const ALGORITHMS = [-8, -7, -257];

/**
 * @simplewebauthn/server for the relying party `PUBLIC_URL` names: its origin is the only one accepted, its host
 * the RP ID. A second factor after a password: user verification is preferred, not required. No attestation is
 * asked for (which authenticator it is does not decide anything here).
 */
export class SimpleWebAuthn implements WebAuthn {
  private readonly origin: string;
  private readonly rpId: string;
  private readonly rpName: string;

  constructor(publicUrl: string) {
    const url = new URL(publicUrl);
    this.origin = url.origin;
    this.rpId = url.hostname;
    this.rpName = url.host;
  }

  async registrationOptions(user: { id: string; name: string; displayName: string }, exclude: readonly PasskeyDescriptor[]): Promise<WebAuthnOptions> {
    const options = await generateRegistrationOptions({
      rpName: this.rpName,
      rpID: this.rpId,
      userName: user.name,
      userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.id),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: exclude.map(descriptor),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    return { options: options as unknown as Record<string, unknown>, challenge: options.challenge };
  }

  async authenticationOptions(allow: readonly PasskeyDescriptor[]): Promise<WebAuthnOptions> {
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: allow.map(descriptor),
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'preferred',
    });
    return { options: options as unknown as Record<string, unknown>, challenge: options.challenge };
  }

  challengeOf(response: unknown): string | null {
    const clientData = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
    if (typeof clientData !== 'string') return null;
    try {
      const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown };
      return typeof parsed?.challenge === 'string' && parsed.challenge.length > 0 ? parsed.challenge : null;
    } catch {
      return null;
    }
  }

  credentialIdOf(response: unknown): string | null {
    const id = (response as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id.length > 0 ? id : null;
  }

  async verifyRegistration(response: unknown, challenge: string): Promise<RegisteredCredential | null> {
    try {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!verified.verified) return null;
      const { credential } = verified.registrationInfo;
      return {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
      };
    } catch {
      // Whatever does not verify (a malformed attestation, a wrong origin, …) is one refusal; the reason stays here.
      return null;
    }
  }

  async verifyAuthentication(response: unknown, challenge: string, passkey: StoredCredential): Promise<AssertionOutcome> {
    try {
      const verified = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: [...passkey.transports] as never },
        requireUserVerification: false,
      });
      return verified.verified ? { ok: true, counter: verified.authenticationInfo.newCounter } : { ok: false, reason: 'invalid_assertion' };
    } catch (error) {
      // The library says a regressed counter only in its message: a cloned authenticator, or a replayed assertion.
      return { ok: false, reason: /counter value/i.test((error as Error)?.message ?? '') ? 'counter_regressed' : 'invalid_assertion' };
    }
  }
}

function descriptor(passkey: PasskeyDescriptor): { id: string; transports?: string[] } {
  return passkey.transports.length > 0 ? { id: passkey.credentialId, transports: [...passkey.transports] } : { id: passkey.credentialId };
}
