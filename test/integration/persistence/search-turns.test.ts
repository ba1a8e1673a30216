import { SEARCH_SLOTS } from '../../../src/infrastructure/persistence/typeorm/connection-turns';
import { TypeOrmAdapters } from '../../support/typeorm-adapters';
import { joinedUser } from '../../contract/contract-kit';
import { mariadbTarget, migratedDatabase, mysql8Target } from './database-targets';

/** Searches asked for at once, each a page of its own (no two share a statement). */
const SEARCHES = 12;

/**
 * Prefix searches (`q`) hold at most SEARCH_SLOTS of the pool's connections, however many are asked for at once: a
 * search may run up to SEARCH_TIME_LIMIT, and thirty broad ones from one reader held all ten connections while
 * sign-ins waited 5–6 s for one (review of 2026-12-07). The rest wait in the process's line, holding none.
 */
describe.each([mariadbTarget, mysql8Target])('prefix searches on $name', (target) => {
  const db = migratedDatabase(target);

  it(`run at most ${SEARCH_SLOTS} statements at once, and each answers its own page`, async () => {
    const adapters = new TypeOrmAdapters(db.dataSource);
    const users = adapters.users();
    for (let i = 0; i < 30; i++) await users.add(joinedUser(`turnsearch${String(i).padStart(2, '0')}`));
    const ordered = ((await db.dataSource.query("SELECT id FROM users WHERE username_key LIKE 'turnsearch%' ORDER BY id")) as { id: string }[]).map((row) => row.id);

    // Every statement of a search is time-limited (search-time-limit.ts): counted while it is in flight.
    const manager = db.dataSource.manager;
    const query = manager.query.bind(manager);
    let [inFlight, most] = [0, 0];
    const spy = jest.spyOn(manager, 'query').mockImplementation(async (sql: string, parameters?: unknown[]) => {
      const search = /max_statement_time|MAX_EXECUTION_TIME/.test(sql);
      if (search) most = Math.max(most, ++inFlight);
      try {
        return await query(sql, parameters);
      } finally {
        if (search) inFlight--;
      }
    });
    try {
      const pages = await Promise.all(Array.from({ length: SEARCHES }, (_, i) => users.list({ offset: i, limit: 2 }, { prefix: 'turnsearch' })));
      expect(pages.map((page) => page.items.map((user) => user.id))).toEqual(Array.from({ length: SEARCHES }, (_, i) => ordered.slice(i, i + 2)));
      expect(pages.map((page) => page.total)).toEqual(Array(SEARCHES).fill(30));
    } finally {
      spy.mockRestore();
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(SEARCH_SLOTS);
  }, 60_000);
});
