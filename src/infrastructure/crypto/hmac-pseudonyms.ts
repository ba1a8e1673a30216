import type { Pseudonyms } from '../../application/ports/pseudonyms.port';
import { DerivedHmac } from './derived-hmac';

/**
 * Pseudonyms as an HMAC under a key derived from the second factors' key (DerivedHmac): the key never leaves the
 * process, so a reader of the trail or of its Kafka topic cannot test guesses against a name. 64 bits of the HMAC,
 * in hex. The key is loaded at the first pseudonym when given as a function (the CLI's create-admin, which audits
 * too, never loads it).
 */
export class HmacPseudonyms implements Pseudonyms {
  private readonly hmac: DerivedHmac;

  constructor(mfaKey: Buffer | (() => Buffer)) {
    this.hmac = new DerivedHmac(mfaKey, 'access-control audit pseudonym v1');
  }

  of(text: string): string {
    return this.hmac.hex(text).slice(0, 16);
  }
}
