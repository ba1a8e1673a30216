import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { EmailDomainKeys1766200000000 } from '../../../src/infrastructure/persistence/migrations/1766200000000-email-domain-keys';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS, migratedDatabase } from './database-targets';
import { upWithWarnings } from './migration-warnings';

const ids = new UuidV7IdGenerator();

/**
 * A domain keyed as DNS reads it: rows written by the previous version, whose keys held the domain as typed
 * (lower-cased, composed), are given its ASCII form, except where two rows become one mailbox: those are reported
 * and left as they were.
 */
describe.each(ALL_TARGETS)('the migration that keys e-mail domains as DNS reads them on $name', (target) => {
  const db = migratedDatabase(target);

  const keyOf = async (id: string): Promise<string> =>
    ((await db.dataSource.query('SELECT email_key FROM users WHERE id = ?', [id])) as { email_key: string }[])[0]!.email_key;

  /** A pending user as the previous version wrote it: the key is the address lower-cased and composed. */
  async function legacyUser(email: string): Promise<string> {
    const id = ids.next();
    await db.dataSource.query(
      'INSERT INTO users (id, email, email_key, role_id, invited_at) VALUES (?, ?, ?, ?, ?)',
      [id, email, email.normalize('NFC').toLowerCase().normalize('NFC'), SEEDED_ROLES.member, '2026-01-01 00:00:00.000'],
    );
    return id;
  }

  const migrate = async () => (await upWithWarnings(db.dataSource, new EmailDomainKeys1766200000000())).map((w) => w.message);

  it('gives an internationalised or full-width domain its ASCII key, and reports the users it would make one', async () => {
    const alone = await legacyUser('Ren\u00e9e@B\u00fccher.de');
    const ascii = await legacyUser('Plain@Example.com');
    // Full-width letters and the plain spelling: one mailbox, two keys until now.
    const holder = await legacyUser('ada@example.org');
    const wide = await legacyUser('ada@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org');

    const warnings = await migrate();

    expect(await keyOf(alone)).toBe('ren\u00e9e@xn--bcher-kva.de');
    expect(await keyOf(ascii)).toBe('plain@example.com');
    expect(await keyOf(holder)).toBe('ada@example.org');
    expect(await keyOf(wide)).toBe('ada@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org');
    expect(warnings).toEqual([expect.stringContaining(`${holder} (holds the key), ${wide} (key left as it was)`)]);
    expect(warnings[0]).toContain('read as DNS reads it');
    expect(warnings[0]).not.toMatch(/@/);

    // Found by either spelling of the domain now.
    const users = new TypeOrmAdapters(db.dataSource).users();
    expect(await users.existsWithEmail('ren\u00e9e@xn--bcher-kva.de')).toBe(true);
    expect(await users.existsWithEmail('REN\u00c9E@b\u00fccher.DE')).toBe(true);
    expect(await runMigrations(db.dataSource)).toEqual([]);
  });
});
