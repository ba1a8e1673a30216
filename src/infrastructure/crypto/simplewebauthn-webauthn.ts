import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { isEd25519PointOfLargeOrder, isP256Point, isSoundRsaKey } from '../../domain/service-accounts/public-key-values';
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
      if (!isSoundPublicKey(credential.publicKey)) return null;
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

/**
 * Whether a registered credential's COSE key is one an assertion can be verified with and only its private half can
 * sign for, by the rules a service account's JWK meets (public-key-values.ts): a P-256 point on the curve, an RSA
 * modulus of 2048 to 8192 bits with an exponent of at least 65537, an Ed25519 point of large order. The library checks
 * the attestation's shape and algorithm, not the numbers: a key off the curve or a one-byte modulus was stored, never
 * verified anything, and took one of the user's ten places.
 */
function isSoundPublicKey(publicKey: Uint8Array<ArrayBuffer>): boolean {
  const key = decodeCredentialPublicKey(publicKey);
  const text = (value: Uint8Array | undefined): string | undefined => (value ? Buffer.from(value).toString('base64url') : undefined);
  if (cose.isCOSEPublicKeyEC2(key)) {
    const [x, y] = [key.get(cose.COSEKEYS.x), key.get(cose.COSEKEYS.y)];
    return key.get(cose.COSEKEYS.crv) === cose.COSECRV.P256 && x?.length === 32 && y?.length === 32 && isP256Point(text(x)!, text(y)!);
  }
  if (cose.isCOSEPublicKeyRSA(key)) {
    const [n, e] = [key.get(cose.COSEKEYS.n), key.get(cose.COSEKEYS.e)];
    // The lengths bound the arithmetic before the numbers are read (8192 bits, a few leading zero octets).
    return n !== undefined && e !== undefined && n.length <= 1040 && e.length <= 64 && isSoundRsaKey(text(n)!, text(e)!);
  }
  if (cose.isCOSEPublicKeyOKP(key)) {
    const x = key.get(cose.COSEKEYS.x);
    return key.get(cose.COSEKEYS.crv) === cose.COSECRV.ED25519 && x?.length === 32 && isEd25519PointOfLargeOrder(text(x)!);
  }
  return false;
}
