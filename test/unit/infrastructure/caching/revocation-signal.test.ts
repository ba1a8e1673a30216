import type { Actor } from '../../../../src/application/auth/actor';
import type { TokenSubject } from '../../../../src/application/auth/authenticate-actor.use-case';
import { type ActorResolver, CachedActorResolver } from '../../../../src/infrastructure/caching/cached-actor-resolver';
import { type RevocationView, RevocationWatch } from '../../../../src/infrastructure/caching/revocation-watch';
import { ActorMother } from '../../../support/mothers/actor.mother';

/** Users by id with their token version, answering as AuthenticateActorUseCase does; counts its reads. */
class CountingResolver implements ActorResolver {
  reads = 0;
  readonly users = new Map<string, { tokenVersion: number; actor: Actor | null }>();

  async execute(token: TokenSubject): Promise<Actor | null> {
    this.reads++;
    const user = this.users.get(token.subject);
    return user && 'tokenVersion' in token && user.tokenVersion === token.tokenVersion ? user.actor : null;
  }
}

/** A signal the test sets by hand: epochs by subject, the roles' revision, or lost (null). */
class HandSignal {
  epochs = new Map<string, number>();
  rolesRevision = 1;
  lost = false;
  current(): RevocationView | null {
    return this.lost ? null : { epochOf: (id) => this.epochs.get(id) ?? 0, rolesRevision: this.rolesRevision };
  }
}

function setup() {
  const inner = new CountingResolver();
  const alice = ActorMother.withPermissions(['users:read']);
  inner.users.set(alice.userId, { tokenVersion: 0, actor: alice });
  const signal = new HandSignal();
  const resolver = new CachedActorResolver(inner, { ttlMs: 0, signal });
  const token: TokenSubject = { subject: alice.userId, tokenVersion: 0 };
  return { inner, alice, signal, resolver, token };
}

describe('CachedActorResolver on the revocation signal', () => {
  it('reads a subject once while its epoch and the roles revision stay as they were', async () => {
    const { inner, alice, resolver, token } = setup();
    for (let i = 0; i < 5; i++) await expect(resolver.execute(token)).resolves.toEqual(alice);
    expect(inner.reads).toBe(1);
  });

  it('reads the subject again once its epoch moves: a sign-out elsewhere refuses the token at the next request', async () => {
    const { inner, resolver, signal, token, alice } = setup();
    await resolver.execute(token);
    inner.users.set(alice.userId, { tokenVersion: 1, actor: alice }); // signed out on another replica
    await expect(resolver.execute(token)).resolves.toEqual(alice); // its epoch not seen yet: kept
    signal.epochs.set(alice.userId, 1);
    await expect(resolver.execute(token)).resolves.toBeNull();
    expect(inner.reads).toBe(2);
  });

  it('reads again when the roles revision moves (a role\'s permissions changed)', async () => {
    const { inner, resolver, signal, token, alice } = setup();
    await resolver.execute(token);
    const narrowed = { ...alice, permissions: [] };
    inner.users.set(alice.userId, { tokenVersion: 0, actor: narrowed });
    signal.rolesRevision = 2;
    await expect(resolver.execute(token)).resolves.toEqual(narrowed);
    expect(inner.reads).toBe(2);
  });

  it('reads every request while the signal is lost (fail closed), and caches nothing then', async () => {
    const { inner, resolver, signal, token } = setup();
    signal.lost = true;
    await resolver.execute(token);
    await resolver.execute(token);
    expect(inner.reads).toBe(2);
  });

  it('never answers a token of another version from the entry', async () => {
    const { inner, resolver, token, alice } = setup();
    await resolver.execute(token);
    inner.users.set(alice.userId, { tokenVersion: 1, actor: alice });
    await expect(resolver.execute({ subject: alice.userId, tokenVersion: 1 })).resolves.toEqual(alice);
    await expect(resolver.execute(token)).resolves.toBeNull();
  });
});

describe('RevocationWatch', () => {
  function watch(read: () => Promise<{ epochs: number[]; rolesRevision: number }>, extra: { bypass?: () => boolean } = {}) {
    let now = 1000;
    const w = new RevocationWatch({ windowMs: 250, pollEveryMs: 80, read, shardOf: (id) => Number(id), now: () => now, ...extra });
    return { w, advance: (ms: number) => (now += ms) };
  }

  it('is trusted only while its last poll started within the window', async () => {
    const { w, advance } = watch(async () => ({ epochs: [5, 7], rolesRevision: 3 }));
    expect(w.current()).toBeNull(); // never polled
    await w.poll();
    expect(w.current()?.epochOf('1')).toBe(7);
    expect(w.current()?.rolesRevision).toBe(3);
    advance(250);
    expect(w.current()).not.toBeNull();
    advance(1);
    expect(w.current()).toBeNull();
  });

  it('stops being trusted when its polls fail, and is trusted again after one succeeds', async () => {
    let failing = false;
    const failures: unknown[] = [];
    let now = 0;
    const w = new RevocationWatch({
      windowMs: 250,
      pollEveryMs: 80,
      shardOf: () => 0,
      now: () => now,
      onPollFailed: (error) => failures.push(error),
      read: async () => {
        if (failing) throw new Error('database away');
        return { epochs: [1], rolesRevision: 1 };
      },
    });
    await w.poll();
    failing = true;
    for (let i = 0; i < 4; i++) {
      now += 80;
      await w.poll();
    }
    expect(w.current()).toBeNull();
    expect(failures).toHaveLength(4);
    failing = false;
    await w.poll();
    expect(w.current()).not.toBeNull();
  });

  it('judges a snapshot by when its poll started: one that stalled past the window is not trusted', async () => {
    let release: () => void = () => undefined;
    let now = 0;
    const w = new RevocationWatch({
      windowMs: 250,
      pollEveryMs: 80,
      shardOf: () => 0,
      now: () => now,
      read: () => new Promise((resolve) => (release = () => resolve({ epochs: [1], rolesRevision: 1 }))),
    });
    const stalled = w.poll();
    now += 300;
    release();
    await stalled;
    expect(w.current()).toBeNull();
  });

  it('is not trusted inside a request that itself changed access (it reads its own writes)', async () => {
    let revoking = false;
    const { w } = watch(async () => ({ epochs: [0], rolesRevision: 1 }), { bypass: () => revoking });
    await w.poll();
    expect(w.current()).not.toBeNull();
    revoking = true;
    expect(w.current()).toBeNull();
  });

  it('settles after more than the window', async () => {
    jest.useFakeTimers();
    try {
      const { w } = watch(async () => ({ epochs: [0], rolesRevision: 1 }));
      let settled = false;
      void w.settle().then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(250);
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(10);
      expect(settled).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
