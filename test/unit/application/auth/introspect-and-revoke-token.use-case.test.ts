import { auditRecorderFor } from '../../../support/fakes/audit-recorder';
import type { Actor } from '../../../../src/application/auth/actor';
import type { TokenSubject } from '../../../../src/application/auth/authenticate-actor.use-case';
import { IntrospectTokenUseCase } from '../../../../src/application/auth/introspect-token.use-case';
import { RevokeTokenUseCase } from '../../../../src/application/auth/revoke-token.use-case';
import { SignOutUseCase } from '../../../../src/application/auth/sign-out.use-case';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../../../../src/application/ports/access-token-verifier.port';
import { PermissionDeniedError } from '../../../../src/domain/permissions/permission-denied.error';
import { fakeSessionIssuer } from '../../../support/fakes/fake-session-issuer';
import { FakeTokenIssuer } from '../../../support/fakes/fake-token-issuer';
import { FixedClock } from '../../../support/fakes/fixed-clock';
import { InMemoryRoleRepository } from '../../../support/fakes/in-memory-role.repository';
import { InMemoryUserRepository } from '../../../support/fakes/in-memory-user.repository';
import { ioBoundary } from '../../../support/fakes/io-boundary';
import { RoleMother } from '../../../support/mothers/role.mother';
import { UserMother } from '../../../support/mothers/user.mother';

const ISSUER = 'https://id.example.com';

/** Access tokens by their text: what the real verifier would say of each (null: a bad signature, expired, …). */
class FakeAccessTokenVerifier implements AccessTokenVerifier {
  readonly tokens = new Map<string, VerifiedAccessToken>();

  async verify(token: string): Promise<VerifiedAccessToken | null> {
    await ioBoundary();
    return this.tokens.get(token) ?? null;
  }
}

function setup() {
  const clock = new FixedClock();
  const reader = RoleMother.withPermissions('reader', ['users:read', 'roles:read']);
  const checker = RoleMother.withPermissions('checker', ['tokens:introspect']);
  const roles = new InMemoryRoleRepository([RoleMother.admin(), RoleMother.member(), reader, checker]);
  const ada = UserMother.joined({ username: 'ada', role: reader });
  const users = new InMemoryUserRepository([ada]);
  const { sessionIssuer, refreshTokenStore, secretTokens } = fakeSessionIssuer(new FakeTokenIssuer(clock), clock);
  const accessTokenVerifier = new FakeAccessTokenVerifier();
  const services: TokenSubject[] = [];
  const authenticateActor = {
    async execute(token: TokenSubject): Promise<Actor | null> {
      services.push(token);
      return token.kind === 'service' && token.subject === 'svc-1' ? { userId: 'svc-1', clientId: 'client-1', permissions: ['users:read'] } : null;
    },
  };
  const lookup = { accessTokenVerifier, refreshTokenStore, secretTokens, userRepository: users };
  const introspect = new IntrospectTokenUseCase({ ...lookup, authenticateActor, roleRepository: roles });
  const { auditRecorder, auditTrail } = auditRecorderFor();
  const revoke = new RevokeTokenUseCase({ ...lookup, authenticateActor, auditRecorder, signOut: new SignOutUseCase({ auditRecorder, userRepository: users }), clock });
  const now = Math.floor(clock.now().getTime() / 1000);
  const accessToken = (claims: Partial<VerifiedAccessToken> = {}) => {
    const token = `header.payload-${accessTokenVerifier.tokens.size}.signature`;
    accessTokenVerifier.tokens.set(token, {
      kind: 'user',
      subject: ada.id,
      tokenVersion: 0,
      issuer: ISSUER,
      audience: 'access-control',
      issuedAt: now,
      expiresAt: now + 900,
      ...claims,
    } as VerifiedAccessToken);
    return token;
  };
  const caller = { id: 'svc-caller', roleId: checker.id };
  return { clock, users, ada, store: refreshTokenStore, introspect, revoke, accessToken, caller, services, signIn: () => sessionIssuer.start(ada.id, 0), now, auditTrail };
}

describe('IntrospectTokenUseCase (RFC 7662)', () => {
  it('describes a valid user access token: its user, the role’s permissions now as scope, the token’s claims', async () => {
    const { introspect, accessToken, caller, ada, now } = setup();
    await expect(introspect.execute({ caller, token: accessToken() })).resolves.toEqual({
      active: true,
      sub: ada.id,
      scope: 'users:read roles:read',
      exp: now + 900,
      iat: now,
      iss: ISSUER,
      aud: 'access-control',
      token_type: 'Bearer',
      username: 'ada',
    });
  });

  it('answers only {active: false} to a valid refresh token: the API refuses it as a bearer token', async () => {
    const { introspect, caller, signIn } = setup();
    const { refreshToken } = await signIn();
    await expect(introspect.execute({ caller, token: refreshToken })).resolves.toEqual({ active: false });
  });

  it('needs tokens:introspect', async () => {
    const { introspect, accessToken } = setup();
    await expect(introspect.execute({ caller: { id: 'svc', roleId: RoleMother.member().id }, token: accessToken() })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it('answers only {active: false} to an unknown, malformed or unverifiable token', async () => {
    const { introspect, caller } = setup();
    for (const token of ['x'.repeat(43), 'not.a-verified.token', '', 'a b c', 'x'.repeat(20_000)]) {
      await expect(introspect.execute({ caller, token })).resolves.toEqual({ active: false });
    }
  });

  it('is inactive after sign-out, deactivation, deletion or a password change (the token version moved on)', async () => {
    const { introspect, caller, accessToken, users, ada } = setup();
    const token = accessToken();
    await users.incrementTokenVersion(ada.id);
    await expect(introspect.execute({ caller, token })).resolves.toEqual({ active: false });

    const gone = setup();
    const deactivated = gone.accessToken();
    const user = (await gone.users.findById(gone.ada.id))!;
    user.deactivate({ by: 'admin', now: gone.clock.now(), newId: () => 'event-id' });
    await gone.users.update(user);
    await expect(gone.introspect.execute({ caller: gone.caller, token: deactivated })).resolves.toEqual({ active: false });
    const unknownUser = gone.accessToken({ subject: 'someone-else' });
    await expect(gone.introspect.execute({ caller: gone.caller, token: unknownUser })).resolves.toEqual({ active: false });
  });

  it('asks the API’s own resolution about a service’s token, and answers its client id and narrowed scope', async () => {
    const { introspect, caller, accessToken, services } = setup();
    const service = accessToken({ kind: 'service', subject: 'svc-1', clientId: 'client-1', scope: ['users:read'], issuedAt: 1_800_000_000 } as Partial<VerifiedAccessToken>);
    await expect(introspect.execute({ caller, token: service })).resolves.toMatchObject({ active: true, sub: 'svc-1', client_id: 'client-1', scope: 'users:read', token_type: 'Bearer' });
    // With its issue time: a token of before the account's last disabling is not active (AuthenticateActorUseCase).
    expect(services).toEqual([{ kind: 'service', subject: 'svc-1', clientId: 'client-1', scope: ['users:read'], issuedAt: 1_800_000_000 }]);
    const disabled = accessToken({ kind: 'service', subject: 'svc-2', clientId: 'client-2', scope: [] } as Partial<VerifiedAccessToken>);
    await expect(introspect.execute({ caller, token: disabled })).resolves.toEqual({ active: false });
  });
});

describe('RevokeTokenUseCase (RFC 7009)', () => {
  it('revokes a refresh token’s whole family, its successor included, and leaves other sign-ins alone', async () => {
    const { revoke, signIn, store, auditTrail, ada } = setup();
    const first = await signIn();
    await signIn();
    const familyId = store.all()[0]!.familyId;

    await expect(revoke.execute({ token: first.refreshToken })).resolves.toBe('revoked');

    expect(store.all().filter((r) => r.familyId === familyId).every((r) => r.revokedAt !== null)).toBe(true);
    expect(store.all().filter((r) => r.familyId !== familyId).map((r) => r.revokedAt)).toEqual([null]);
    // Audited as the sign-out it is (README: every sign-out), by the token's user.
    expect(auditTrail.entries.map((e) => [e.action, e.code, e.actor.id, e.target?.id])).toEqual([['auth.signed_out', 'refresh_token_revoked', ada.id, ada.id]]);
    // Again: nothing changes, the same answer, and no second sign-out in the trail.
    await expect(revoke.execute({ token: first.refreshToken })).resolves.toBe('revoked');
    expect(auditTrail.entries).toHaveLength(1);
  });

  it('revokes the family of a used token whose row went after its use (its token names the family)', async () => {
    const { revoke, introspect, caller, signIn, store, auditTrail, ada, clock } = setup();
    const first = await signIn();
    await signIn();
    const [used] = store.all();
    // Two exchanges, as RefreshSessionUseCase makes them: the second forgets the first token's row.
    const second = { ...used!, id: 'second', tokenHash: 'second-hash', createdAt: clock.now() };
    await store.rotate(used!.id, clock.now(), second);
    await store.rotate(second.id, clock.now(), { ...second, id: 'third', tokenHash: 'third-hash' }, { forgetUsedBefore: new Date(clock.now().getTime() + 1) });
    expect(store.all().map((r) => r.id)).not.toContain(used!.id);

    await expect(introspect.execute({ caller, token: first.refreshToken })).resolves.toEqual({ active: false });
    await expect(revoke.execute({ token: first.refreshToken })).resolves.toBe('revoked');

    expect(store.all().filter((r) => r.familyId === used!.familyId).map((r) => r.revokedAt !== null)).toEqual([true]);
    expect(store.all().filter((r) => r.familyId !== used!.familyId).map((r) => r.revokedAt)).toEqual([null]);
    expect(auditTrail.entries.map((e) => [e.action, e.code, e.target?.id])).toEqual([['auth.signed_out', 'refresh_token_revoked', ada.id]]);
  });

  it('finds nothing to revoke in an unknown or malformed token', async () => {
    const { revoke } = setup();
    for (const token of ['x'.repeat(43), 'a.b.c', 'with spaces']) await expect(revoke.execute({ token })).resolves.toBe('not-found');
  });

  it('signs the user out by a valid access token, ending its refresh tokens too', async () => {
    const { revoke, accessToken, users, ada } = setup();
    await expect(revoke.execute({ token: accessToken() })).resolves.toBe('revoked');
    // The token version moved on: every refresh token of the user is refused from now (RefreshSessionUseCase).
    expect((await users.findById(ada.id))!.tokenVersion).toBe(1);
  });

  it('ends nothing by an access token no longer active: an old token cannot sign its user out of newer sessions', async () => {
    const { revoke, accessToken, users, ada } = setup();
    const old = accessToken();
    await users.incrementTokenVersion(ada.id);
    await expect(revoke.execute({ token: old })).resolves.toBe('not-found');
    expect((await users.findById(ada.id))!.tokenVersion).toBe(1);
  });

  it('does not revoke a service’s active access token, and answers one no longer active as already invalid (RFC 7009 §2.2)', async () => {
    const { revoke, accessToken } = setup();
    const service = accessToken({ kind: 'service', subject: 'svc-1', clientId: 'client-1', scope: [] } as Partial<VerifiedAccessToken>);
    await expect(revoke.execute({ token: service })).resolves.toBe('unsupported');
    // svc-2's account is disabled or deleted: the API no longer takes its token.
    const ended = accessToken({ kind: 'service', subject: 'svc-2', clientId: 'client-2', scope: [] } as Partial<VerifiedAccessToken>);
    await expect(revoke.execute({ token: ended })).resolves.toBe('not-found');
  });
});
