import type { Role } from '../../src/domain/roles/role';
import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { oathtoolTotp } from './oathtool';
import type { TestApp } from './test-app';

const member: Role = { id: SEEDED_ROLES.member, name: 'member', permissions: [] };

/** Members made for a second-factor suite, each named `<prefix>-<n>`, signed in: with or without an authenticator app. */
export function mfaPeople(app: () => TestApp, prefix: string) {
  let counter = 0;
  const signIn = (username: string, password: string) => app().request('POST', '/v1/auth/signin', { json: { username, password } });

  const person = async () => {
    counter += 1;
    const username = `${prefix}-${counter}`;
    const password = `${username}-long-password`;
    const user = await app().addJoinedUser({ username, password, email: `${username}@example.com`, role: member });
    const token = (await signIn(username, password)).body.accessToken as string;
    return { id: user.id, username, password, token };
  };

  /**
   * A user with an active authenticator app (started on the password): its secret and recovery codes. The confirming
   * code was the step of `confirmedAt`: codes meant as "that step" or "the next" are asked of oathtool at that instant,
   * not at the call's (a step boundary in between would make "that step's" code the next one).
   */
  const enrolled = async () => {
    const p = await person();
    const started = await app().request('POST', '/v1/me/mfa/totp', { token: p.token, json: { password: p.password } });
    expect(started.status).toBe(201);
    const secret = started.body.secret as string;
    const confirmedAt = new Date();
    const confirmed = await app().request('POST', '/v1/me/mfa/totp/confirm', { token: p.token, json: { code: oathtoolTotp(secret, 0, confirmedAt) } });
    expect(confirmed.status).toBe(200);
    return { ...p, secret, confirmedAt, recoveryCodes: confirmed.body.recovery_codes as string[] };
  };

  return { signIn, person, enrolled };
}
