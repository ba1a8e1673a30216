import { LoginAttemptKeys } from '../../../src/infrastructure/persistence/typeorm/login-attempt-key';
import { LoginAttemptSchema } from '../../../src/infrastructure/persistence/typeorm/records';
import type { QueryRunner } from 'typeorm';
import type { AuditEntry } from '../../../src/domain/audit/audit-entry';
import { UuidV7IdGenerator } from '../../../src/infrastructure/system/uuid-v7-id-generator';
import { TypeOrmMfaStore } from '../../../src/infrastructure/persistence/typeorm/typeorm-mfa.store';
import { joinedUser } from '../../contract/contract-kit';
import { LoginAttemptLastClaim1766600000000 } from '../../../src/infrastructure/persistence/migrations/1766600000000-login-attempt-last-claim';
import { ALL_TARGETS, migratedDatabase } from './database-targets';
import { upWithWarnings } from './migration-warnings';

const ids = new UuidV7IdGenerator();

/** The lockout counters (TypeOrmLoginAttempts) on every database: their answers, their rows, and their statements. */
describe.each(ALL_TARGETS)('lockout counters on $name', (target) => {
  const db = migratedDatabase(target);

  describe('TypeOrmLoginAttempts', () => {
    const policy = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: 900 };
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
    const attempts = (options?: Parameters<typeof db.adapters.loginAttempts>[0]) => db.adapters.loginAttempts(options);

    it('claims up to the threshold, answering each claim’s count, then refuses; a success starts the count over', async () => {
      const account = `claims-${ids.next()}`;
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await attempts().claim(account, at(0), policy));
      expect(results).toEqual([1, 2, 3, false, false]);
      await attempts().succeeded(account);
      expect(await attempts().claim(account, at(1), policy)).toBe(1);
    });

    /** Runs `work` and answers the statements it sent through the data source's query runners, with its answer. */
    const counting = async <T>(work: () => Promise<T>): Promise<{ answer: T; statements: number }> => {
      const statements: string[] = [];
      const createQueryRunner = db.dataSource.createQueryRunner.bind(db.dataSource);
      // SQLite hands out its one runner again and again: each is wrapped once, and unwrapped after.
      const wrapped = new Map<QueryRunner, QueryRunner['query']>();
      const spy = jest.spyOn(db.dataSource, 'createQueryRunner').mockImplementation((...args) => {
        const runner = createQueryRunner(...args);
        if (!wrapped.has(runner)) {
          const query = runner.query;
          wrapped.set(runner, query);
          runner.query = ((sql: string, ...rest: unknown[]) => (statements.push(sql), query.call(runner, sql, ...(rest as [])))) as QueryRunner['query'];
        }
        return runner;
      });
      try {
        return { answer: await work(), statements: statements.length };
      } finally {
        spy.mockRestore();
        for (const [runner, query] of wrapped) runner.query = query;
      }
    };
    const counters = async (account: string) =>
      ((await db.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [db.adapters.services.loginAttemptKeys.of(account)])) as {
        failures: number | string;
        lockouts: number | string;
        locked_until: unknown;
      }[]).map((r) => [Number(r.failures), Number(r.lockouts), r.locked_until === null ? null : 'locked']);

    it('claims in one statement whether the name was tried before or not, and refuses in one', async () => {
      const account = `one-statement-${ids.next()}`;
      const store = attempts();
      const claims = [];
      for (let i = 0; i < policy.threshold + 1; i++) claims.push(await counting(() => store.claim(account, at(0), policy)));
      expect(claims).toEqual([
        { answer: 1, statements: 1 },
        { answer: 2, statements: 1 },
        { answer: 3, statements: 1 },
        { answer: false, statements: 1 },
      ]);
    });

    it('claimSucceeded starts the counters over where a claim would count, makes a missing row at 0, and refuses as a claim does, in as many statements', async () => {
      const store = attempts();
      const fresh = `succeeded-fresh-${ids.next()}`;
      expect(await counting(() => store.claimSucceeded(fresh, at(0), policy))).toEqual({ answer: true, statements: 1 });
      expect(await counters(fresh)).toEqual([[0, 0, null]]);

      const account = `succeeded-${ids.next()}`;
      await store.claim(account, at(0), policy);
      await store.claim(account, at(0), policy);
      expect(await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true }))).toEqual({ answer: true, statements: 1 });
      expect(await counters(account)).toEqual([[0, 0, null]]);

      // The allowance spent (no lock yet): refused, nothing changed, and the work of a claim refused alike.
      for (let i = 0; i < policy.threshold; i++) await store.claim(account, at(0), policy);
      const refusedClaim = await counting(() => store.claim(account, at(0), policy, { claimedBefore: true }));
      const refusedSuccess = await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true }));
      expect([refusedSuccess, refusedClaim]).toEqual([{ answer: false, statements: 2 }, { answer: false, statements: 2 }]);
      expect(await counters(account)).toEqual([[3, 0, null]]);

      // Locked: refused until the wait is over, then the counters start over, the lock and its count included.
      await store.failed(account, at(0), policy);
      expect(await counters(account)).toEqual([[0, 1, 'locked']]);
      expect(await store.claimSucceeded(account, at(59), policy, { claimedBefore: true })).toBe(false);
      expect(await store.claimSucceeded(account, at(59), policy)).toBe(false);
      expect(await counters(account)).toEqual([[0, 1, 'locked']]);
      expect(await store.claimSucceeded(account, at(60), policy)).toBe(true);
      expect(await counters(account)).toEqual([[0, 0, null]]);
    });

    it('a success uses its sign-in ticket up with the counters, in its one statement: once, with every ticket issued before it', async () => {
      const store = attempts();
      const account = `tickets-${ids.next()}`;
      const usedThrough = async (key = account) =>
        ((await db.dataSource.query('SELECT tickets_used_through AS t FROM login_attempts WHERE username_key = ?', [db.adapters.services.loginAttemptKeys.of(key)])) as { t: unknown }[]).map((r) => (r.t === null ? null : Number(r.t)));
      const issued = 1_767_225_600_123_456; // microseconds since the epoch, as tickets carry them
      await store.claim(account, at(0), policy);
      expect(await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true, ticketIssuedAt: issued }))).toEqual({ answer: true, statements: 1 });
      expect(await usedThrough()).toEqual([issued]);
      // The same ticket again, or one issued before it: refused, nothing changed, in the two statements of any refusal.
      await store.claim(account, at(0), policy);
      for (const ticket of [issued, issued - 1]) {
        expect(await counting(() => store.claimSucceeded(account, at(0), policy, { claimedBefore: true, ticketIssuedAt: ticket }))).toEqual({ answer: false, statements: 2 });
        expect(await store.succeeded(account, { ticketIssuedAt: ticket })).toBe(false);
      }
      expect([await counters(account), await usedThrough()]).toEqual([[[1, 0, null]], [issued]]);
      // A later one, once, through either call; a success without a ticket leaves the use alone.
      expect(await store.succeeded(account, { ticketIssuedAt: issued + 1 })).toBe(true);
      expect(await counters(account)).toEqual([[0, 0, null]]);
      expect(await store.claimSucceeded(account, at(0), policy, { ticketIssuedAt: issued + 2 })).toBe(true);
      expect(await store.claimSucceeded(account, at(0), policy, { ticketIssuedAt: issued + 2 })).toBe(false);
      expect(await store.succeeded(account)).toBe(true);
      expect(await usedThrough()).toEqual([issued + 2]);
      // Locked: an unused ticket is refused too, and stays unused.
      for (let i = 0; i < policy.threshold; i++) await store.claim(account, at(0), policy);
      await store.failed(account, at(0), policy);
      expect(await store.claimSucceeded(account, at(1), policy, { claimedBefore: true, ticketIssuedAt: issued + 3 })).toBe(false);
      expect(await usedThrough()).toEqual([issued + 2]);
      // No row yet: made with its ticket used up.
      const fresh = `tickets-fresh-${ids.next()}`;
      expect(await store.claimSucceeded(fresh, at(0), policy, { ticketIssuedAt: issued })).toBe(true);
      expect(await store.claimSucceeded(fresh, at(0), policy, { ticketIssuedAt: issued })).toBe(false);
      expect(await usedThrough(fresh)).toEqual([issued]);
    });

    it('counts refused second-factor codes apart, in the claim’s one statement: a lock keeps them, every success starts them over', async () => {
      const store = attempts();
      const account = `factor-failures-${ids.next()}`;
      const mfa = new TypeOrmMfaStore({ manager: db.dataSource.manager, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue, loginAttemptKeys: db.adapters.services.loginAttemptKeys });
      // What the second step reads with its ticket's holder (no such user here: the count is read all the same).
      const refused = async () => (await mfa.ticketHolder(ids.next(), account)).factorFailures;
      expect(await refused()).toBe(0);
      expect(await store.claim(account, at(0), policy, { factorFailure: true })).toBe(1); // the row made by the upsert
      expect(await counting(() => store.claim(account, at(0), policy, { claimedBefore: true, factorFailure: true }))).toEqual({ answer: 2, statements: 1 });
      expect(await store.claim(account, at(0), policy, { claimedBefore: true })).toBe(3);
      expect(await refused()).toBe(2);
      // Refused while the allowance is spent: not counted. The lock starts `failures` over, not these.
      expect(await store.claim(account, at(0), policy, { claimedBefore: true, factorFailure: true })).toBe(false);
      await store.failed(account, at(0), policy);
      expect([await counters(account), await refused()]).toEqual([[[0, 1, 'locked']], 2]);
      expect(await store.claim(account, at(120), policy, { claimedBefore: true, factorFailure: true })).toBe(1);
      expect(await store.claim(account, at(120), policy, { factorFailure: true })).toBe(2); // the upsert's update
      expect(await refused()).toBe(4);
      // Each success starts them over: a claim's, the upsert's on a missing row's path, and a plain one.
      expect(await store.claimSucceeded(account, at(120), policy, { claimedBefore: true })).toBe(true);
      expect(await refused()).toBe(0);
      await store.claim(account, at(120), policy, { factorFailure: true });
      expect(await store.claimSucceeded(account, at(120), policy)).toBe(true);
      expect(await refused()).toBe(0);
      await store.claim(account, at(120), policy, { factorFailure: true });
      expect(await store.succeeded(account)).toBe(true);
      expect(await refused()).toBe(0);
    });

    it('a right code’s claim uses its time step too, in the same statement on MySQL and MariaDB: once, refused alike while locked', async () => {
      const store = attempts();
      const account = `steps-${ids.next()}`;
      const user = joinedUser();
      await db.adapters.users().add(user);
      const factorId = ids.next();
      const factors = new TypeOrmMfaStore({ manager: db.dataSource.manager, sqliteWriteQueue: db.adapters.services.sqliteWriteQueue, loginAttemptKeys: db.adapters.services.loginAttemptKeys });
      await factors.savePending({ id: factorId, userId: user.id, type: 'totp', sealedSecret: 'v1.x', createdAt: at(0), confirmedAt: null, lastUsedStep: null });
      const lastStep = async () => Number(((await db.dataSource.query('SELECT last_used_step AS s FROM mfa_factors WHERE id = ?', [factorId])) as { s: unknown }[])[0]!.s);
      const oneStatement = target.name.startsWith('SQLite') ? 2 : 1;
      await store.claim(account, at(0), policy, { factorFailure: true });
      const right = (step: number, ticket: number) => store.claimSucceeded(account, at(0), policy, { claimedBefore: true, ticketIssuedAt: ticket, timeStep: { factorId, step } });
      expect(await counting(() => right(100, 1))).toEqual({ answer: true, statements: oneStatement });
      expect([await lastStep(), await counters(account)]).toEqual([100, [[0, 0, null]]]);
      // The refused code counted before it starts over with the rest.
      expect((await factors.ticketHolder(user.id, account)).factorFailures).toBe(0);
      // The step taken (a replay on a later ticket): the claim stands, the step is told.
      await store.claim(account, at(0), policy);
      expect(await right(100, 2)).toBe('step_used');
      expect([await lastStep(), await counters(account)]).toEqual([100, [[0, 0, null]]]);
      // Locked: refused in the two statements of a wrong code's refused claim, the step unused.
      for (let i = 0; i < policy.threshold; i++) await store.claim(account, at(0), policy);
      await store.failed(account, at(0), policy);
      const refusedRight = await counting(() => right(101, 3));
      const refusedWrong = await counting(() => store.claim(account, at(0), policy, { claimedBefore: true }));
      expect([refusedRight, refusedWrong]).toEqual([{ answer: false, statements: 2 }, { answer: false, statements: 2 }]);
      expect(await lastStep()).toBe(100);
    });

    it('a refusal without a claim writes its entries alone while locked, and locks an allowance spent with no lock', async () => {
      const store = attempts();
      const entry = (code: string): AuditEntry => ({
        id: ids.next(), occurredAt: at(0).getTime(), action: 'auth.signin_failed', outcome: 'failure', code, actor: { type: 'anonymous', id: null, name: null },
        target: { type: 'user', id: null, snapshot: 'refused' }, source: { address: null, userAgent: null }, requestId: null, changes: [],
      });
      // Spent by claims whose outcome never came: no lock yet. The refusal reads the counters and locks.
      const account = `refused-${ids.next()}`;
      for (let i = 0; i < policy.threshold; i++) await store.claim(account, at(0), policy);
      let lockedUntil: Date | null = null;
      await store.failed(account, at(0), policy, (until) => ((lockedUntil = until), [entry('spent')]));
      expect([lockedUntil, await counters(account)]).toEqual([new Date(at(0).getTime() + 60_000), [[0, 1, 'locked']]]);

      // Locked: each further refusal is the read and its entry, nothing locked again, no transaction.
      const refused = await counting(() => store.failed(account, at(30), policy, (until) => [entry(until ? 'relocked' : 'while-locked')]));
      expect(refused.statements).toBe(2);
      expect(await counters(account)).toEqual([[0, 1, 'locked']]);
      const codes = (await db.dataSource.query("SELECT code FROM audit_events WHERE target_snapshot = 'refused' AND code IN ('spent', 'while-locked', 'relocked') ORDER BY code")) as { code: string }[];
      expect(codes.map((r) => r.code)).toEqual(['spent', 'while-locked']);
    });

    it('counts exactly under parallel claims: never more than the threshold, each count answered once', async () => {
      const account = `parallel-${ids.next()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => attempts().claim(account, at(0), policy)));
      expect(results.filter((r) => r !== false).sort()).toEqual([1, 2, 3]);
    });

    it('a failure whose claim was below the threshold writes its entries alone and never locks; the one at the threshold locks', async () => {
      const account = `counted-${ids.next()}`;
      const entry = (code: string): AuditEntry => ({
        id: ids.next(), occurredAt: at(0).getTime(), action: 'auth.signin_failed', outcome: 'failure', code, actor: { type: 'anonymous', id: null, name: null },
        target: { type: 'user', id: null, snapshot: account }, source: { address: null, userAgent: null }, requestId: null, changes: [],
      });
      const written: string[] = [];
      const claims = [await attempts().claim(account, at(0), policy), await attempts().claim(account, at(0), policy), await attempts().claim(account, at(0), policy)];
      expect(claims).toEqual([1, 2, 3]);
      // The first two fail after the third claimed: the counters already read 3, but neither of them spent the allowance.
      for (const claimed of [1, 2]) {
        await attempts().failed(account, at(0), policy, (lockedUntil) => {
          const e = entry(lockedUntil ? 'locked' : `below-${claimed}`);
          written.push(e.id);
          return [e];
        }, claimed);
      }
      const counters = async () =>
        ((await db.dataSource.query('SELECT failures, lockouts FROM login_attempts WHERE username_key = ?', [db.adapters.services.loginAttemptKeys.of(account)])) as { failures: number | string; lockouts: number | string }[]).map((r) => [Number(r.failures), Number(r.lockouts)]);
      expect(await counters()).toEqual([[3, 0]]);
      let lockedUntil: Date | null = null;
      await attempts().failed(account, at(0), policy, (until) => ((lockedUntil = until), []), 3);
      expect([lockedUntil, await counters()]).toEqual([new Date(at(0).getTime() + 60_000), [[0, 1]]]);
      const codes = (await db.dataSource.query(`SELECT code FROM audit_events WHERE id IN (${written.map(() => '?').join(', ')}) ORDER BY code`, written)) as { code: string }[];
      expect(codes.map((r) => r.code)).toEqual(['below-1', 'below-2']);
    });

    it('locks after the allowance is spent, for a wait that doubles, and unlocks when it is over', async () => {
      const account = `lock-${ids.next()}`;
      const spend = async (now: Date) => {
        for (let i = 1; i <= policy.threshold; i++) {
          expect(await attempts().claim(account, now, policy)).toBe(i);
          await attempts().failed(account, now, policy);
        }
      };
      await spend(at(0));
      expect(await attempts().claim(account, at(59), policy)).toBe(false); // locked for 60 s
      await spend(at(60)); // the wait is over: a full allowance again
      expect(await attempts().claim(account, at(60 + 119), policy)).toBe(false); // second lock: 120 s
      expect(await attempts().claim(account, at(60 + 120), policy)).toBe(1);
      await attempts().succeeded(account);
      const [row] = (await db.dataSource.query('SELECT failures, lockouts, locked_until FROM login_attempts WHERE username_key = ?', [db.adapters.services.loginAttemptKeys.of(account)])) as {
        failures: number | string;
        lockouts: number | string;
        locked_until: unknown;
      }[];
      expect([Number(row!.failures), Number(row!.lockouts), row!.locked_until]).toEqual([0, 0, null]);
    });

    it('keys every row by an HMAC of the name, never the name typed (a password typed as a username stays nowhere)', async () => {
      const typed = `My Secret Passw0rd ${ids.next()}`.toLowerCase();
      const long = `x${'y'.repeat(100)}-${ids.next()}`;
      expect(await attempts().claim(typed, at(0), policy)).toBe(1);
      expect(await attempts().claim(long, at(0), policy)).toBe(1);
      const keys = (await db.dataSource.query('SELECT username_key FROM login_attempts')) as { username_key: string }[];
      expect(keys.map((r) => r.username_key)).toEqual(expect.arrayContaining([db.adapters.services.loginAttemptKeys.of(typed), db.adapters.services.loginAttemptKeys.of(long)]));
      expect(keys.every((r) => /^[0-9a-f]{64}$/.test(r.username_key))).toBe(true);
      expect(JSON.stringify(keys)).not.toContain('secret passw0rd');
      // Another key (another MFA_ENCRYPTION_KEY) names the same account by another row.
      expect(new LoginAttemptKeys(() => Buffer.alloc(32, 1)).of(typed)).not.toBe(db.adapters.services.loginAttemptKeys.of(typed));
    });

    describe('the purge of idle counters', () => {
      const day = 86_400;
      const keyOf = (account: string) => db.adapters.services.loginAttemptKeys.of(account);
      const present = async (...accounts: string[]) => {
        const rows = (await db.dataSource.query(
          `SELECT username_key FROM login_attempts WHERE username_key IN (${accounts.map(() => '?').join(', ')})`,
          accounts.map(keyOf),
        )) as { username_key: string }[];
        const kept = new Set(rows.map((r) => r.username_key));
        return accounts.filter((account) => kept.has(keyOf(account)));
      };

      /** A store whose claims never start a purge: the tests below run it by hand. */
      const byHand = () => attempts({ purgeEveryMs: Number.POSITIVE_INFINITY });

      it('forgets the names idle for a day, and keeps a lock running, a refused code and a recent ticket however old their claim', async () => {
        const store = byHand();
        const unknown = `purge-unknown-${ids.next()}`;
        const recent = `purge-recent-${ids.next()}`;
        const signedIn = `purge-signed-in-${ids.next()}`;
        const locked = `purge-locked-${ids.next()}`;
        const refusedCode = `purge-code-${ids.next()}`;
        const ticketed = `purge-ticket-${ids.next()}`;
        for (const account of [unknown, signedIn, locked, refusedCode, ticketed]) expect(await store.claim(account, at(0), policy)).toBe(1);
        await store.succeeded(signedIn);
        await store.claim(refusedCode, at(1), policy, { claimedBefore: true, factorFailure: true });
        // A lock that outlasts the idle time (a later, longer LOCKOUT_MAX_WAIT), and a ticket used after the cutoff.
        await db.dataSource.query('UPDATE login_attempts SET locked_until = ? WHERE username_key = ?', [new Date(at(0).getTime() + 3 * day * 1000).toISOString().replace('T', ' ').replace('Z', ''), keyOf(locked)]);
        const now = new Date(at(0).getTime() + (day + 2) * 1000);
        expect(await store.claimSucceeded(ticketed, at(0), policy, { claimedBefore: true, ticketIssuedAt: (now.getTime() - 1000) * 1000 })).toBe(true);
        expect(await store.claim(recent, new Date(now.getTime() - 1000), policy)).toBe(1);

        expect(await store.purgeIdle(new Date(at(0).getTime() + day * 1000 - 1000), policy)).toBe(0);
        expect(await present(unknown, signedIn)).toEqual([unknown, signedIn]);
        expect(await store.purgeIdle(now, policy)).toBeGreaterThanOrEqual(2);
        expect(await present(unknown, recent, signedIn, locked, refusedCode, ticketed)).toEqual([recent, locked, refusedCode, ticketed]);
        // Forgotten: the name counts from 1 again, as one never tried.
        expect(await store.claim(unknown, now, policy)).toBe(1);
      });

      it('waits as long as forgetting could speed a guesser up, when the longest lock makes that more than a day', async () => {
        const store = byHand();
        const account = `purge-long-${ids.next()}`;
        const slow = { threshold: 3, baseWaitSeconds: 60, maxWaitSeconds: day }; // 11 doublings: 12 days
        expect(await store.claim(account, at(0), slow)).toBe(1);
        expect(await store.purgeIdle(new Date(at(0).getTime() + 11 * day * 1000), slow)).toBe(0);
        expect(await present(account)).toEqual([account]);
        await store.purgeIdle(new Date(at(0).getTime() + 12 * day * 1000), slow);
        expect(await present(account)).toEqual([]);
      });

      it('deletes any number of rows, a batch at a time, and runs by itself after a claim once every interval', async () => {
        const names = Array.from({ length: 1_203 }, (_, i) => `purge-many-${i}-${ids.next()}`);
        const store = attempts({ purgeEveryMs: 60_000 });
        for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((name) => store.claim(name, at(0), policy)));
        expect(await present(...names)).toHaveLength(names.length);
        // The next claim a day and more later finds the purge due and starts it, without waiting for it.
        const later = new Date(at(0).getTime() + 2 * day * 1000);
        const last = `purge-trigger-${ids.next()}`;
        expect(await store.claim(last, later, policy)).toBe(1);
        for (let waited = 0; (await present(...names)).length > 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await present(...names, last)).toEqual([last]);
      });

      it('keeps every row claimed while it deletes, and loses no count: claims and the purge on the same rows at once', async () => {
        const store = byHand();
        const names = Array.from({ length: 1_200 }, (_, i) => `purge-race-${i}-${ids.next()}`);
        for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((name) => store.claim(name, at(0), policy)));
        const now = new Date(at(0).getTime() + 2 * day * 1000);
        // Every third name is tried again while the purge runs, from other stores (other replicas).
        const again = names.filter((_, i) => i % 3 === 0);
        const [purged, ...counts] = await Promise.all([store.purgeIdle(now, policy), ...again.map((name) => attempts().claim(name, now, policy))]);
        for (const [i, count] of counts.entries()) {
          // Forgotten before its claim (1), or still there and counted once more (2): never lost, never counted twice.
          expect([again[i], [1, 2]]).toEqual([again[i], expect.arrayContaining([count])]);
        }
        expect(await present(...again)).toEqual(again);
        expect(purged).toBeGreaterThanOrEqual(names.length - again.length);
        expect(await present(...names.filter((_, i) => i % 3 !== 0))).toEqual([]);
        // 1 600 writes: on sql.js (each write saved to its file) 40–60 s on this 2-core machine, past jest's 60 s on a
        // slow hour (two CI runs of 2026-12-07); what it checks is the counts, not the time.
      }, 180_000);

      it('counts the rows an earlier version made from the first purge after the upgrade, so they are forgotten a day after it', async () => {
        const migration = new LoginAttemptLastClaim1766600000000();
        const runner = db.dataSource.createQueryRunner();
        const legacy = `purge-legacy-${ids.next()}`;
        try {
          await migration.down(runner);
          await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, lockouts) VALUES (?, 2, 0)', [keyOf(legacy)]);
        } finally {
          await runner.release();
        }
        expect(await upWithWarnings(db.dataSource, migration)).toEqual([]);
        // A replica of the earlier version, during a rolling upgrade, still makes rows without a claim time.
        const late = `purge-legacy-late-${ids.next()}`;
        await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, lockouts) VALUES (?, 1, 0)', [keyOf(late)]);
        const store = byHand();
        const firstPurge = new Date(Date.UTC(2027, 0, 1));
        await store.purgeIdle(firstPurge, policy); // stamps them (and forgets other tests' rows, idle since 2026)
        expect(await store.purgeIdle(new Date(firstPurge.getTime() + (day - 60) * 1000), policy)).toBe(0);
        expect(await present(legacy, late)).toEqual([legacy, late]);
        await store.purgeIdle(new Date(firstPurge.getTime() + (day + 60) * 1000), policy);
        expect(await present(legacy, late)).toEqual([]);
      });

      it('deletes at its next run the rows a version before keyed rows wrote by the name typed (a rollback), unless locked now', async () => {
        // Written by a replica of that version, through a rollback: keyed by the name, with no claim time.
        const typed = `a-password-typed-as-a-name-${ids.next()}`;
        const locked = `locked-by-name-${ids.next()}`;
        const keyed = `keyed-unstamped-${ids.next()}`;
        const now = new Date();
        await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, lockouts) VALUES (?, 1, 0)', [typed]);
        await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, locked_until, lockouts) VALUES (?, 5, ?, 1)', [
          locked,
          db.dataSource.driver.preparePersistentValue(new Date(now.getTime() + 600_000), db.dataSource.getMetadata(LoginAttemptSchema).findColumnWithPropertyName('lockedUntil')!),
        ]);
        await db.dataSource.query('INSERT INTO login_attempts (username_key, failures, lockouts) VALUES (?, 1, 0)', [keyOf(keyed)]);
        await byHand().purgeIdle(now, policy);
        const rows = (await db.dataSource.query('SELECT username_key FROM login_attempts WHERE username_key IN (?, ?, ?)', [typed, locked, keyOf(keyed)])) as {
          username_key: string;
        }[];
        expect(rows.map((r) => r.username_key).sort()).toEqual([locked, keyOf(keyed)].sort());
      });

      it('reports a purge that fails and leaves the claim that started it counted', async () => {
        const failures: unknown[] = [];
        const store = attempts({ purgeEveryMs: 1, onPurgeFailed: (error) => failures.push(error) });
        const account = `purge-fails-${ids.next()}`;
        expect(await store.claim(account, at(0), policy)).toBe(1);
        const query = jest.spyOn(db.dataSource, 'query').mockRejectedValueOnce(new Error('connection lost'));
        try {
          expect(await store.claim(account, at(10), policy)).toBe(2);
          for (let waited = 0; failures.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        } finally {
          query.mockRestore();
        }
        expect(failures).toEqual([new Error('connection lost')]);
      });
    });
  });

});
