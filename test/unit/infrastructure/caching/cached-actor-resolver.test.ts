import type { Actor } from '../../../../src/application/auth/actor';
import type { TokenSubject } from '../../../../src/application/auth/authenticate-actor.use-case';
import { type ActorResolver, CachedActorResolver } from '../../../../src/infrastructure/caching/cached-actor-resolver';
import { ActorMother } from '../../../support/mothers/actor.mother';

/** Joined users by id with their current token version, answering as AuthenticateActorUseCase does. */
class FakeResolver implements ActorResolver {
  readonly calls: TokenSubject[] = [];
  readonly users = new Map<string, { tokenVersion: number; actor: Actor }>();
  /** When set, the next call waits until the test calls `release()`. */
  private gate: Promise<void> | null = null;
  release: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  async execute(token: TokenSubject): Promise<Actor | null> {
    this.calls.push(token);
    const gate = this.gate;
    this.gate = null;
    const user = this.users.get(token.subject);
    const answer = user && 'tokenVersion' in token && user.tokenVersion === token.tokenVersion ? user.actor : null;
    if (gate) await gate;
    return answer;
  }
}

/** What ACTOR_CACHE_TTL=2s gives the resolver. */
const TTL_MS = 2000;

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const inner = new FakeResolver();
  const alice = ActorMother.withPermissions(['users:read']);
  const bob = ActorMother.admin();
  inner.users.set(alice.userId, { tokenVersion: 0, actor: alice });
  inner.users.set(bob.userId, { tokenVersion: 3, actor: bob });
  return { inner, alice, bob, resolver: new CachedActorResolver(inner, { ttlMs: TTL_MS, ...options }) };
}

const token = (actor: Actor, tokenVersion = 0): TokenSubject => ({ subject: actor.userId, tokenVersion });

describe('CachedActorResolver', () => {
  // The cache's clock is performance.now(): fake timers move it without waiting.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves a subject once per TTL', async () => {
    const { inner, alice, resolver } = setup();

    await expect(resolver.execute(token(alice))).resolves.toEqual(alice);
    jest.advanceTimersByTime(TTL_MS - 1);
    await expect(resolver.execute(token(alice))).resolves.toEqual(alice);
    expect(inner.calls).toHaveLength(1);

    jest.advanceTimersByTime(2);
    await resolver.execute(token(alice));
    expect(inner.calls).toHaveLength(2);
  });

  it('keeps an answer per subject', async () => {
    const { inner, alice, bob, resolver } = setup();
    await expect(resolver.execute(token(alice))).resolves.toEqual(alice);
    await expect(resolver.execute(token(bob, 3))).resolves.toEqual(bob);
    await expect(resolver.execute(token(alice))).resolves.toEqual(alice);
    expect(inner.calls).toHaveLength(2);
  });

  it('remembers a subject that is no joined user too', async () => {
    const { inner, resolver } = setup();
    await expect(resolver.execute({ subject: 'gone', tokenVersion: 0 })).resolves.toBeNull();
    await expect(resolver.execute({ subject: 'gone', tokenVersion: 0 })).resolves.toBeNull();
    expect(inner.calls).toHaveLength(1);
  });

  it('drops a user on invalidate: a sign-out takes effect at once', async () => {
    const { inner, alice, resolver } = setup();
    await resolver.execute(token(alice));
    inner.users.set(alice.userId, { tokenVersion: 1, actor: alice }); // signed out
    resolver.invalidate(alice.userId);

    await expect(resolver.execute(token(alice))).resolves.toBeNull();
    expect(inner.calls).toHaveLength(2);
  });

  it('leaves the other users cached on invalidate', async () => {
    const { inner, alice, bob, resolver } = setup();
    await resolver.execute(token(alice));
    await resolver.execute(token(bob, 3));
    resolver.invalidate(alice.userId);
    await resolver.execute(token(bob, 3));
    expect(inner.calls).toHaveLength(2);
  });

  it('never caches what was read before a sign-out that happened during the read', async () => {
    const { inner, alice, resolver } = setup();
    inner.hold();
    const during = resolver.execute(token(alice));
    inner.users.set(alice.userId, { tokenVersion: 1, actor: alice }); // signed out meanwhile
    resolver.invalidate(alice.userId);
    inner.release();
    await expect(during).resolves.toEqual(alice); // answered from the read that began before the sign-out

    await expect(resolver.execute(token(alice))).resolves.toBeNull();
    expect(inner.calls).toHaveLength(2);
  });

  it('does not serve a token of another version from the cache', async () => {
    const { inner, alice, resolver } = setup();
    await resolver.execute(token(alice, 0));
    inner.users.set(alice.userId, { tokenVersion: 1, actor: alice }); // signed out and in again, elsewhere

    await expect(resolver.execute(token(alice, 1))).resolves.toEqual(alice);
    expect(inner.calls).toEqual([token(alice, 0), token(alice, 1)]);
    // The old token is not accepted from anything cached before the change either.
    await expect(resolver.execute(token(alice, 0))).resolves.toBeNull();
    expect(inner.calls.at(-1)).toEqual(token(alice, 0));
  });

  it('drops every user on clear()', async () => {
    const { inner, alice, bob, resolver } = setup();
    await resolver.execute(token(alice));
    await resolver.execute(token(bob, 3));
    resolver.clear();
    await resolver.execute(token(alice));
    await resolver.execute(token(bob, 3));
    expect(inner.calls).toHaveLength(4);
  });

  it('honours its ttlMs and maxEntries options', async () => {
    const { inner, alice, bob, resolver } = setup({ ttlMs: 50, maxEntries: 1 });
    await resolver.execute(token(alice));
    await resolver.execute(token(bob, 3)); // evicts alice
    await resolver.execute(token(alice));
    expect(inner.calls).toHaveLength(3);

    jest.advanceTimersByTime(51);
    await resolver.execute(token(alice));
    expect(inner.calls).toHaveLength(4);
  });
});

describe('CachedActorResolver with the role catalogue’s revision', () => {
  it('resolves afresh once any role changed, so new permissions apply on the next request', async () => {
    const inner = new FakeResolver();
    const alice = ActorMother.withPermissions(['users:read']);
    inner.users.set(alice.userId, { tokenVersion: 0, actor: alice });
    let revision = 1;
    const resolver = new CachedActorResolver(inner, { ttlMs: 60_000, rolesRevision: async () => revision });

    await expect(resolver.execute(token(alice))).resolves.toEqual(alice);
    await resolver.execute(token(alice));
    expect(inner.calls).toHaveLength(1);

    const stripped = { ...alice, permissions: [] };
    inner.users.set(alice.userId, { tokenVersion: 0, actor: stripped });
    revision = 2; // a role change committed (by any replica)
    await expect(resolver.execute(token(alice))).resolves.toEqual(stripped);
    expect(inner.calls).toHaveLength(2);
  });
});
