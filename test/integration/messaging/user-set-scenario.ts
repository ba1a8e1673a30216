/**
 * The driver of the user-set replay test: a seeded, randomized sequence of user changes made
 * through the service's HTTP API as an admin would make them, custom roles created, renamed and
 * deleted among them. Each batch runs up to four changes at once, on different users and roles (a
 * user's or a role's own changes stay in sequence, as a client's would; a role is not assigned while it
 * is renamed or deleted). The model here only picks valid changes and says which events each one must
 * record, in order.
 */
import { SEEDED_ROLES } from '../../../src/infrastructure/persistence/migrations/1763700000000-initial-schema';
import type { CapturingMailer } from '../../support/capturing-mailer';
import { ADMIN, type TestApp } from '../../support/test-app';

type Status = 'pending' | 'active' | 'deactivated';

interface ModeledRole {
  id: string;
  name: string;
  builtIn: boolean;
}

interface Modeled {
  /** Order of invitation: candidates are picked in this order, so a seed always makes the same run. */
  seq: number;
  id: string;
  email: string;
  name?: string;
  /** The role's id. */
  role: string;
  status: Status;
  joined: boolean;
}

type Action = { kind: string; run: () => Promise<void> };

const NAMES = ['Ada Lovelace', 'Zoë Ünïcode', 'Grace Hopper', 'Линус Торвальдс', '山田 太郎', 'Émile Zola', "Máire O'Brien", 'Renée 🚀 Lune'];

/** mulberry32: a small seeded generator, so a failing run can be replayed with its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ReplayScenario {
  token = '';
  /** Per user id, the event types its changes must have recorded, in order. */
  readonly expectedEvents = new Map<string, string[]>();
  /** The same per custom role id. */
  readonly expectedRoleEvents = new Map<string, string[]>();
  /** How many changes of each kind ran (`noop`: a change that changes nothing and records nothing). */
  readonly performed = new Map<string, number>();
  /** Users revoked or deleted: gone from the list and from a consumer's copy. */
  readonly removed: string[] = [];
  /** Every password set, to check none reaches an event. */
  readonly passwords: string[] = [];
  private readonly live = new Map<string, Modeled>();
  private readonly roles = new Map<string, ModeledRole>([
    [SEEDED_ROLES.admin, { id: SEEDED_ROLES.admin, name: 'admin', builtIn: true }],
    [SEEDED_ROLES.member, { id: SEEDED_ROLES.member, name: 'member', builtIn: true }],
  ]);
  private readonly freedEmails: string[] = [];
  private readonly random: () => number;
  /** The roles assigned by the running batch: assigned again in it at will, never renamed or deleted in it. */
  private readonly assigned = new Set<string>();
  private adminId = '';
  private counter = 0;

  constructor(
    private readonly app: TestApp,
    private readonly mailer: CapturingMailer,
    seed: number,
  ) {
    this.random = seeded(seed);
  }

  /** Signs the bootstrap admin in: it acts throughout, and it is a user of the set too (created at start). */
  async start(): Promise<void> {
    this.token = await this.app.signIn();
    this.passwords.push(ADMIN.password);
    const found = await this.app.request('GET', `/v1/users?email=${encodeURIComponent(ADMIN.email)}`, { token: this.token });
    this.adminId = found.body.users[0]._id;
    this.live.set(this.adminId, { seq: 0, id: this.adminId, email: ADMIN.email, name: ADMIN.name, role: SEEDED_ROLES.admin, status: 'active', joined: true });
    this.record(this.adminId, 'UserJoined');
  }

  /** Up to four changes at once, each on a user or a role of its own (invitations and new roles on new ones). */
  async runBatch(): Promise<void> {
    const size = 1 + Math.floor(this.random() * 4);
    // Users and roles changed in this batch (this.assigned: the roles it assigns).
    const busy = new Set<string>();
    this.assigned.clear();
    const actions: Action[] = [];
    for (let i = 0; i < size; i += 1) {
      const action = this.choose(busy);
      if (action) actions.push(action);
    }
    await Promise.all(actions.map((a) => a.run()));
  }

  private choose(busy: Set<string>): Action | undefined {
    const free = [...this.live.values()].filter((u) => !busy.has(u.id)).sort((a, b) => a.seq - b.seq);
    const others = free.filter((u) => u.id !== this.adminId);
    const invitees = others.filter((u) => !u.joined);
    const customs = [...this.roles.values()].filter((r) => !r.builtIn && !busy.has(r.id) && !this.assigned.has(r.id));
    const held = new Set([...this.live.values()].map((u) => u.role));
    const options: [number, () => Action | undefined][] = [
      [this.live.size < 8 ? 10 : 4, () => this.invite(busy)],
      [customs.length < 3 ? 2 : 0, () => this.createRole()],
      [1, () => this.target(customs, busy, (r) => this.renameRole(r))],
      [1, () => this.target(customs.filter((r) => !held.has(r.id)), busy, (r) => this.deleteRole(r))],
      [3, () => this.target(invitees.filter((u) => u.status === 'pending'), busy, (u) => this.accept(u))],
      [2, () => this.target(free, busy, (u) => this.rename(u))],
      [2, () => this.target(others, busy, (u) => this.changeRole(u, busy))],
      [1, () => this.target(others, busy, (u) => this.renameAndChangeRole(u, busy))],
      [2, () => this.target(others, busy, (u) => this.deactivate(u))],
      [2, () => this.target(others.filter((u) => u.status === 'deactivated'), busy, (u) => this.reactivate(u))],
      [1, () => this.target(others, busy, (u) => this.remove(u))],
      [1, () => this.target(invitees, busy, (u) => this.revoke(u))],
      [1, () => this.target(invitees.filter((u) => u.status === 'pending'), busy, (u) => this.resend(u))],
    ];
    const total = options.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.random() * total;
    for (const [weight, make] of options) {
      roll -= weight;
      if (roll < 0) return make();
    }
    return undefined;
  }

  /** One of the candidates (a user or a role), marked busy for the rest of the batch. */
  private target<T extends { id: string }>(candidates: T[], busy: Set<string>, make: (picked: T) => Action): Action | undefined {
    if (candidates.length === 0) return undefined;
    const picked = this.pick(candidates);
    busy.add(picked.id);
    return make(picked);
  }

  /** A custom role, with one permission the admin holds. */
  private createRole(): Action {
    const name = `replay-role-${++this.counter}`;
    return this.action('createRole', async () => {
      const response = await this.call('POST', '/v1/roles', { name, permissions: ['users:read'] }, 201);
      const id = response.body._id as string;
      this.roles.set(id, { id, name, builtIn: false });
      this.record(id, 'RoleCreated', this.expectedRoleEvents);
    });
  }

  /** Renames a custom role: its holders' copies must show the new name, though their own events carry the old one. */
  private renameRole(role: ModeledRole): Action {
    const name = `replay-role-${++this.counter}`;
    return this.action('renameRole', async () => {
      const response = await this.call('PATCH', `/v1/roles/${role.id}`, { name }, 200);
      expect(response.body).toMatchObject({ _id: role.id, name });
      role.name = name;
      this.record(role.id, 'RoleChanged', this.expectedRoleEvents);
    });
  }

  /** Deletes a custom role nobody holds (erased users' rows do not count). */
  private deleteRole(role: ModeledRole): Action {
    this.roles.delete(role.id);
    return this.action('deleteRole', async () => {
      await this.call('DELETE', `/v1/roles/${role.id}`, undefined, 204);
      this.record(role.id, 'RoleDeleted', this.expectedRoleEvents);
    });
  }

  /** A role to assign in this batch (none that it renames or deletes), marked so that it neither renames nor deletes it. */
  private assignable(busy: Set<string>, other?: string): string {
    const role = this.pick([...this.roles.values()].filter((r) => r.id !== other && !busy.has(r.id)));
    this.assigned.add(role.id);
    return role.id;
  }

  private invite(busy: Set<string>): Action {
    const reuse = this.freedEmails.length > 0 && this.random() < 0.4;
    // A freed address (its user revoked or deleted) may be invited again: a new user, a new id.
    const email = reuse ? this.freedEmails.splice(Math.floor(this.random() * this.freedEmails.length), 1)[0]! : `Replay.User${++this.counter}@Example.test`;
    const name = this.random() < 0.6 ? this.pick(NAMES) : undefined;
    const role = this.random() < 0.25 ? SEEDED_ROLES.admin : this.assignable(busy);
    const seq = ++this.counter;
    return this.action('invite', async () => {
      const response = await this.call('POST', '/v1/users/invite', { email, role: this.roleName(role), ...(name !== undefined ? { name } : {}) }, 201);
      const id = response.headers.get('location')!.split('/').pop()!;
      this.live.set(id, { seq, id, email, ...(name !== undefined ? { name } : {}), role, status: 'pending', joined: false });
      this.record(id, 'UserInvited');
    });
  }

  /** The mailer's part is played here (no mailer process runs): the latest mail event of the user issues the link. */
  private accept(user: Modeled): Action {
    const name = this.pick(NAMES);
    const username = `replay.user-${++this.counter}`;
    const password = `replay passphrase ${this.counter} ${Math.floor(this.random() * 1e9)}`;
    this.passwords.push(password);
    return this.action('accept', async () => {
      const { dataSource, issueInvitation } = this.app.api.container.cradle;
      const [latest] = (await dataSource.query(
        "SELECT id FROM outbox_events WHERE aggregate_id = ? AND type IN ('UserInvited', 'UserInvitationResent') ORDER BY occurred_at DESC, id DESC",
        [user.id],
      )) as { id: string }[];
      const sent = this.mailer.sent.length;
      expect(await issueInvitation.execute({ eventId: latest!.id, userId: user.id })).toBe('sent');
      const token = await this.mailer.tokenSentTo(user.email, sent);
      const joined = await this.app.request('POST', '/v1/invitations/accept', { json: { token, name, username, password } });
      expect([joined.status, joined.body]).toEqual([200, { _id: user.id, username }]);
      Object.assign(user, { name, status: 'active', joined: true });
      this.record(user.id, 'UserJoined');
    });
  }

  private rename(user: Modeled): Action {
    const name = user.name !== undefined && this.random() < 0.15 ? user.name : this.pick(NAMES.filter((n) => n !== user.name));
    return this.patch(user, { name });
  }

  private changeRole(user: Modeled, busy: Set<string>): Action {
    const role = this.random() < 0.15 ? user.role : this.assignable(busy, user.role);
    return this.patch(user, { role });
  }

  private renameAndChangeRole(user: Modeled, busy: Set<string>): Action {
    return this.patch(user, { name: this.pick(NAMES.filter((n) => n !== user.name)), role: this.assignable(busy, user.role) });
  }

  /** PATCH with a role named by name or by `_id`, at random; the same value is no change and no event. */
  private patch(user: Modeled, change: { name?: string; role?: string }): Action {
    const renamed = change.name !== undefined && change.name !== user.name;
    const moved = change.role !== undefined && change.role !== user.role;
    const kind = renamed && moved ? 'renameAndRole' : renamed ? 'rename' : moved ? 'role' : 'noop';
    const body = {
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.role !== undefined ? { role: this.random() < 0.5 ? this.roleName(change.role) : change.role } : {}),
    };
    return this.action(kind, async () => {
      const response = await this.call('PATCH', `/v1/users/${user.id}`, body, 200);
      expect(response.body).toMatchObject({ _id: user.id, ...(change.name !== undefined ? { name: change.name } : {}) });
      if (change.name !== undefined) user.name = change.name;
      if (change.role !== undefined) user.role = change.role;
      if (renamed) this.record(user.id, 'UserUpdated');
      if (moved) this.record(user.id, 'UserRoleChanged');
    });
  }

  private deactivate(user: Modeled): Action {
    const already = user.status === 'deactivated';
    return this.action(already ? 'noop' : 'deactivate', async () => {
      const response = await this.call('POST', `/v1/users/${user.id}/deactivate`, undefined, 200);
      expect(response.body.status).toBe('deactivated');
      user.status = 'deactivated';
      if (!already) this.record(user.id, 'UserDeactivated');
    });
  }

  private reactivate(user: Modeled): Action {
    return this.action('reactivate', async () => {
      const response = await this.call('POST', `/v1/users/${user.id}/reactivate`, undefined, 200);
      user.status = user.joined ? 'active' : 'pending';
      expect(response.body.status).toBe(user.status);
      this.record(user.id, 'UserReactivated');
    });
  }

  private remove(user: Modeled): Action {
    this.live.delete(user.id);
    return this.action('delete', async () => {
      await this.call('DELETE', `/v1/users/${user.id}`, undefined, 204);
      this.gone(user);
      this.record(user.id, 'UserDeleted');
    });
  }

  private revoke(user: Modeled): Action {
    this.live.delete(user.id);
    return this.action('revoke', async () => {
      await this.call('DELETE', `/v1/users/${user.id}/invitation`, undefined, 204);
      this.gone(user);
      this.record(user.id, 'UserInvitationRevoked');
    });
  }

  private resend(user: Modeled): Action {
    return this.action('resend', async () => {
      await this.call('POST', `/v1/users/${user.id}/invitation/resend`, undefined, 202);
      this.record(user.id, 'UserInvitationResent');
    });
  }

  private gone(user: Modeled): void {
    this.removed.push(user.id);
    this.freedEmails.push(user.email);
  }

  /** The role's name as it is when the request is made (a rename of it never runs in the same batch). */
  private roleName(id: string): string {
    return this.roles.get(id)!.name;
  }

  private action(kind: string, run: () => Promise<void>): Action {
    return {
      kind,
      run: async () => {
        await run();
        this.performed.set(kind, (this.performed.get(kind) ?? 0) + 1);
      },
    };
  }

  private async call(method: string, path: string, json: unknown, status: number) {
    const response = await this.app.request(method, path, { token: this.token, ...(json !== undefined ? { json } : {}) });
    if (response.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${response.text}`);
    return response;
  }

  private record(id: string, type: string, expected = this.expectedEvents): void {
    const list = expected.get(id) ?? [];
    list.push(type);
    expected.set(id, list);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
}
