import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { mfaKeyOf, signingKeysOf } from '../../../src/infrastructure/configured-keys';
import { createLogger } from '../../../src/infrastructure/logging/logger';

/** A logger whose lines (level and message) a test reads. */
function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const { level, msg } = JSON.parse(chunk.toString()) as { level: number; msg: string };
      lines.push({ level, msg });
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('the keys the embedded default keeps under DATA_DIR, on a shared database', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-keys-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('warns, naming the variables to set, when DATABASE_URL is a MySQL/MariaDB one and the keys are not given', async () => {
    const config = loadConfig({ DATABASE_URL: 'mariadb://u:p@db:3306/access_control', DATA_DIR: dataDir });
    const { logger, lines } = capturingLogger();
    signingKeysOf(config, logger);
    mfaKeyOf(config, logger);
    await flushed();
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toEqual([
      expect.stringMatching(/^DATABASE_URL is set without JWT_PRIVATE_KEY and JWT_PUBLIC_KEY: .*set JWT_PRIVATE_KEY and JWT_PUBLIC_KEY/),
      expect.stringMatching(/^DATABASE_URL is set without MFA_ENCRYPTION_KEY: .*set MFA_ENCRYPTION_KEY/),
    ]);
  });

  it('says nothing on the embedded SQLite database, or when the keys are given', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const given = loadConfig({
      DATABASE_URL: 'mysql://u:p@db:3306/access_control',
      DATA_DIR: dataDir,
      JWT_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      JWT_PUBLIC_KEY: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      MFA_ENCRYPTION_KEY: 'ab'.repeat(32),
    });
    const embedded = loadConfig({ DATA_DIR: dataDir });
    const { logger, lines } = capturingLogger();
    for (const config of [given, embedded]) {
      signingKeysOf(config, logger);
      mfaKeyOf(config, logger);
    }
    await flushed();
    expect(lines).toEqual([]);
  });
});
