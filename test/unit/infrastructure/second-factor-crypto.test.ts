import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AesGcmSecretCipher, LOCAL_MFA_KEY_FILE, loadOrCreateLocalMfaKey, parseMfaKey } from '../../../src/infrastructure/crypto/aes-gcm-secret-cipher';
import { OtplibTotp, RandomRecoveryCodes } from '../../../src/infrastructure/crypto/otplib-totp';
import { oathtoolTotp } from '../../support/oathtool';

describe('second-factor crypto (#24)', () => {
  describe('AesGcmSecretCipher', () => {
    const cipher = new AesGcmSecretCipher(Buffer.alloc(32, 7));

    it('seals to a different text each time and opens back to the secret', () => {
      const a = cipher.seal('JBSWY3DPEHPK3PXP');
      const b = cipher.seal('JBSWY3DPEHPK3PXP');
      expect(a).not.toBe(b);
      expect(a).not.toContain('JBSWY3DPEHPK3PXP');
      expect(cipher.open(a)).toBe('JBSWY3DPEHPK3PXP');
    });

    it('opens nothing of a changed text or another key (null, and says so), never a wrong secret', () => {
      const sealed = cipher.seal('JBSWY3DPEHPK3PXP');
      const parts = sealed.split('.');
      parts[3] = Buffer.from('changed!').toString('base64url');
      const told: string[] = [];
      const watched = new AesGcmSecretCipher(Buffer.alloc(32, 7), (reason) => told.push(reason));
      expect(watched.open(parts.join('.'))).toBeNull();
      expect(new AesGcmSecretCipher(Buffer.alloc(32, 8), (reason) => told.push(reason)).open(sealed)).toBeNull();
      expect(watched.open('not sealed')).toBeNull();
      expect(told).toEqual(['its tag does not verify with this key', 'its tag does not verify with this key', 'not in the v1 form']);
      expect(watched.open(sealed)).toBe('JBSWY3DPEHPK3PXP');
      expect(told).toHaveLength(3);
    });

    it('reads MFA_ENCRYPTION_KEY as 64 hex digits or base64 of 32 bytes, nothing else', () => {
      expect(parseMfaKey('ab'.repeat(32))?.length).toBe(32);
      expect(parseMfaKey(Buffer.alloc(32, 1).toString('base64'))?.length).toBe(32);
      expect(parseMfaKey('too short')).toBeNull();
    });

    it('keeps the embedded default key under DATA_DIR (0600), the same at every start', () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'mfa-key-'));
      const first = loadOrCreateLocalMfaKey(dir);
      expect(loadOrCreateLocalMfaKey(dir).equals(first)).toBe(true);
      expect(readFileSync(path.join(dir, LOCAL_MFA_KEY_FILE), 'utf8')).toBe(first.toString('hex'));
      expect(statSync(path.join(dir, LOCAL_MFA_KEY_FILE)).mode & 0o777).toBe(0o600);
    });
  });

  describe('OtplibTotp, checked against oathtool', () => {
    const totp = new OtplibTotp('access-control.example');
    const step = () => Math.floor(Date.now() / 30_000);

    it('makes a base32 secret and an otpauth URI an app reads', () => {
      const secret = totp.newSecret();
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(totp.uri(secret, 'ada@example.com')).toBe(`otpauth://totp/access-control.example:ada%40example.com?secret=${secret}&issuer=access-control.example`);
    });

    it('puts no colon in the issuer or the account name, where the key URI format allows none', () => {
      const secret = totp.newSecret();
      const uri = new URL(new OtplibTotp('localhost:3000').uri(secret, 'odd:name'));
      expect(decodeURIComponent(uri.pathname)).toBe('/localhost 3000:odd name');
      expect(uri.searchParams.get('issuer')).toBe('localhost 3000');
    });

    it('accepts the current code and one step of drift either way, not two', async () => {
      const secret = totp.newSecret();
      const now = new Date();
      for (const offset of [-1, 0, 1]) expect(await totp.verify(secret, oathtoolTotp(secret, offset, now), now, null)).not.toBeNull();
      expect(await totp.verify(secret, oathtoolTotp(secret, -3, now), now, null)).toBeNull();
      expect(await totp.verify(secret, oathtoolTotp(secret, 3, now), now, null)).toBeNull();
    });

    it('answers the step a code belongs to, and refuses it once that step is recorded', async () => {
      const secret = totp.newSecret();
      const code = oathtoolTotp(secret);
      const matched = await totp.verify(secret, code, new Date(), null);
      expect([step() - 1, step()]).toContain(matched);
      expect(await totp.verify(secret, code, new Date(), matched)).toBeNull();
    });

    it('renders the URI as a PNG data URL', async () => {
      expect(await totp.qrCode('otpauth://totp/x:y?secret=JBSWY3DPEHPK3PXP')).toMatch(/^data:image\/png;base64,/);
    });
  });

  it('makes recovery codes of two groups of five, without look-alike characters', () => {
    const codes = Array.from({ length: 50 }, () => new RandomRecoveryCodes().next());
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(50);
  });
});
