import { SEEDED_ROLES } from '../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import { ADMIN, startTestApp } from '../support/test-app';

const ADMIN_ROLE = { id: SEEDED_ROLES.admin, name: 'admin', permissions: [] };

/** ADMIN_* bootstraps an admin once per database: an erased bootstrap admin stays erased across restarts. */
describe('the bootstrap admin (once per database)', () => {
  it('does not come back after a second admin erased it, at the next start of any replica', async () => {
    const first = await startTestApp();
    const logs: string[] = [];
    try {
      const bootstrapToken = await first.signIn();
      const me = await first.request('GET', '/v1/me', { token: bootstrapToken });
      await first.addJoinedUser({ username: 'second.admin', password: 'second-admin-password', email: 'second@example.com', role: ADMIN_ROLE });
      const second = await first.signIn('second.admin', 'second-admin-password');
      expect((await first.request('DELETE', `/v1/users/${me.body._id}`, { token: second })).status).toBe(204);

      // Another replica starts on the same database with the same ADMIN_* (a restart, a scale-up).
      const restarted = await startTestApp({ LOG_LEVEL: 'info' }, {}, first.database, { write: (line) => logs.push(line) });
      try {
        const signIn = await restarted.request('POST', '/v1/auth/signin', { json: { username: ADMIN.username, password: ADMIN.password } });
        expect(signIn.status).toBe(401);
        const list = await restarted.request('GET', '/v1/users?page_size=100', { token: await restarted.signIn('second.admin', 'second-admin-password') });
        expect(list.body.users.map((u: { username?: string }) => u.username)).toEqual(['second.admin']);
        expect(logs.join('\n')).toMatch(/ADMIN_\* left unused: this database had its bootstrap admin already/);
        expect(logs.join('\n')).not.toContain(ADMIN.password);
      } finally {
        await restarted.api.close();
      }
    } finally {
      await first.close();
    }
  });
});
