import { EmailAlreadyTakenError } from '../../../src/domain/users/user.errors';
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { NormaliseIdentifiers1764700000000 } from '../../../src/infrastructure/persistence/migrations/1764700000000-normalise-identifiers';
import { runMigrations } from '../../../src/infrastructure/persistence/typeorm/migrate';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { ALL_TARGETS, migratedDatabase } from './database-targets';
import { upWithWarnings } from './migration-warnings';

const ids = new UuidV7IdGenerator();
const member = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

type Row = Record<string, unknown>;

/**
 * Look-alike identifiers (#22): rows written by the previous version, whose keys were lower-cased but not
 * composed (NFC), are given composed keys, except where two rows' keys become one: those are reported and
 * left as they were, nothing merged or deleted, and the service reads them still.
 */
describe.each(ALL_TARGETS)('the migration that composes identifier keys on $name', (target) => {
  const db = migratedDatabase(target);

  const row = async (id: string): Promise<Row> =>
    ((await db.dataSource.query('SELECT email, email_key, username, username_key, name, name_key FROM users WHERE id = ?', [id])) as Row[])[0]!;

  const migrate = () => upWithWarnings(db.dataSource, new NormaliseIdentifiers1764700000000());

  /** A row as the previous version wrote it: keys lower-cased, never composed. */
  async function legacyUser(fields: { email: string; username?: string; name?: string }): Promise<string> {
    const id = ids.next();
    const { email, username = null, name = null } = fields;
    await db.dataSource.query(
      'INSERT INTO users (id, email, email_key, name, name_key, username, username_key, password_hash, role_id, invited_at, joined_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        email,
        email.toLowerCase(),
        name,
        name?.toLowerCase() ?? null,
        username,
        username?.toLowerCase() ?? null,
        username ? 'h' : null,
        SEEDED_ROLES.member,
        '2026-01-01 00:00:00.000',
        username ? '2026-01-02 00:00:00.000' : null,
      ],
    );
    return id;
  }

  it('composes keys that collide with nothing, reports the users whose keys would become one without touching them, and composes theirs once resolved', async () => {
    // Precomposed "é" (already its key) and "e" + combining acute: one address once composed.
    const holder = await legacyUser({ email: 'Jos\u00e9@Example.com', username: 'jose.one', name: 'Jos\u00e9 One' });
    const lookAlike = await legacyUser({ email: 'JOSE\u0301@example.com', username: 'jose.two', name: 'Jose\u0301 Two' });
    // Two decomposed spellings of "ệ" (the marks in either order), neither composed: one address once composed.
    const twinA = await legacyUser({ email: 'ne\u0323\u0302t@example.com' });
    const twinB = await legacyUser({ email: 'ne\u0302\u0323t@example.com' });
    // Alone: composed.
    const alone = await legacyUser({ email: 'Rene\u0301e@example.com', username: 'renee', name: 'Rene\u0301e A\u0301lvarez' });
    const ascii = await legacyUser({ email: 'Plain@Example.com', username: 'Plain.User', name: 'Plain User' });

    const warnings = await migrate();

    expect(await row(alone)).toEqual({
      email: 'Rene\u0301e@example.com',
      email_key: 'ren\u00e9e@example.com',
      username: 'renee',
      username_key: 'renee',
      name: 'Rene\u0301e A\u0301lvarez',
      name_key: 'ren\u00e9e \u00e1lvarez',
    });
    expect(await row(ascii)).toMatchObject({ email_key: 'plain@example.com', username_key: 'plain.user', name_key: 'plain user' });
    // The colliding rows keep their keys; only the name key (not unique) is composed.
    expect(await row(holder)).toMatchObject({ email_key: 'jos\u00e9@example.com', name_key: 'jos\u00e9 one' });
    expect(await row(lookAlike)).toMatchObject({ email: 'JOSE\u0301@example.com', email_key: 'jose\u0301@example.com', name_key: 'jos\u00e9 two' });
    expect((await row(twinA)).email_key).toBe('ne\u0323\u0302t@example.com');
    expect((await row(twinB)).email_key).toBe('ne\u0302\u0323t@example.com');

    // One warning per collision, naming the users by id (never by address), the key's holder first.
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) {
      expect(warning).toMatchObject({ name: 'IdentifierCollisionWarning', code: 'IDENTIFIER_COLLISION' });
      expect(warning.message).toContain('Look-alike e-mails and usernames');
      expect(warning.message).not.toMatch(/@/);
    }
    const jose = warnings.find((w) => w.message.includes(lookAlike))!;
    expect(jose.message).toContain(`${holder} (holds the key), ${lookAlike} (key left as it was)`);
    const twins = warnings.find((w) => w.message.includes(twinA))!;
    expect(twins.message).toContain(twinB);
    expect(twins.message).not.toContain('holds the key');

    // The service reads every one of them still: by username, and by the composed key where it holds it.
    const users = new TypeOrmAdapters(db.dataSource).users();
    expect((await users.findByUsername('jose.two'))?.id).toBe(lookAlike);
    expect((await users.list({ offset: 0, limit: 10 }, { emailKey: 'jos\u00e9@example.com' })).items.map((u) => u.id)).toEqual([holder]);
    expect((await users.list({ offset: 0, limit: 10 }, { emailKey: 'ren\u00e9e@example.com' })).items.map((u) => u.id)).toEqual([alone]);
    expect((await users.list({ offset: 0, limit: 10 }, { prefix: 'ren\u00e9e \u00e1l' })).items.map((u) => u.id)).toEqual([alone]);

    // Until an operator resolves it, a change to the user whose key was left answers EMAIL_TAKEN: every save writes the composed key.
    const adapters = new TypeOrmAdapters(db.dataSource);
    const left = (await adapters.users().findById(lookAlike))!;
    left.update({ by: ids.next(), now: new Date(), newId: () => ids.next(), name: 'Jose Two', previousRole: member });
    await expect(adapters.users().update(left)).rejects.toBeInstanceOf(EmailAlreadyTakenError);

    // Resolved as DECISIONS.md says: the other account is deleted, and the migration run again gives the one that
    // stays the composed key; it reports only what still collides and changes nothing else.
    const removed = (await adapters.users().findById(holder))!;
    removed.delete({ by: ids.next(), now: new Date(), newId: () => ids.next() });
    await adapters.unitOfWork().run(({ users: inTransaction }) => inTransaction.erase(removed));
    const again = await migrate();
    expect((await row(lookAlike)).email_key).toBe('jos\u00e9@example.com');
    expect(again.map((w) => w.message)).toEqual([expect.stringContaining(twinA)]);
    expect((await row(alone)).email_key).toBe('ren\u00e9e@example.com');
    expect((await new TypeOrmAdapters(db.dataSource).users().list({ offset: 0, limit: 10 }, { emailKey: 'jos\u00e9@example.com' })).items.map((u) => u.id)).toEqual([lookAlike]);
    expect(await runMigrations(db.dataSource)).toEqual([]);
  });
});
