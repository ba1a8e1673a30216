/**
 * A consumer's copy of the user set, rebuilt from the user-events topic alone: what a team
 * consuming access-control would write from docs/events (README and one JSON Schema per type),
 * without reading this service's code. It validates each value against its documented schema,
 * deduplicates by `id` (delivery is at least once), ignores types it does not know (the
 * versioning rule) and keeps `{ id → { email, name, username, role, status } }`. A role's name is the
 * one its own events (RoleCreated, RoleChanged) last gave, where there are any: a user event carries the
 * name as it was when recorded, and a role's events are on another partition than its holders'.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface ReplicaRole {
  _id: string;
  name: string;
}

export interface ReplicaUser {
  email: string;
  name?: string;
  username?: string;
  role: ReplicaRole;
  status: 'pending' | 'active' | 'deactivated';
}

/** The envelope fields a consumer reads (CloudEvents 1.0, structured mode). */
export interface ConsumedEvent {
  id: string;
  type: string;
  subject: string;
  time: string;
  data: Record<string, unknown>;
}

const EVENTS_DIR = path.resolve(__dirname, '../../docs/events');

/** One validator per documented type, from docs/events/<type>.schema.json. */
function documentedSchemas(): Map<string, ValidateFunction> {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  for (const file of readdirSync(EVENTS_DIR).filter((f) => f.endsWith('.schema.json'))) {
    validators.set(file.replace(/\.schema\.json$/, ''), ajv.compile(JSON.parse(readFileSync(path.join(EVENTS_DIR, file), 'utf8'))));
  }
  return validators;
}

export class UserSetReplica {
  /** The users as their own events left them (each role with the name the user's last event carried). */
  private readonly held = new Map<string, ReplicaUser>();
  /** Role id → name, from the roles' own events: custom roles only (built-in ones are never renamed). */
  private readonly roleNames = new Map<string, string>();
  /** Events the replica could not make sense of: invalid against their schema, or about a user it never saw created. */
  readonly problems: string[] = [];
  readonly ignoredTypes = new Set<string>();
  private readonly seen = new Set<string>();
  private readonly schemas = documentedSchemas();

  /** The copy of the user set: each user with its role's current name. */
  get users(): Map<string, ReplicaUser> {
    const named = (role: ReplicaRole): ReplicaRole => ({ _id: role._id, name: this.roleNames.get(role._id) ?? role.name });
    return new Map([...this.held].map(([id, user]) => [id, { ...user, role: named(user.role) }]));
  }

  /** Applies one Kafka message value; false when it was a duplicate (an `id` seen before). */
  apply(value: string): boolean {
    const event = JSON.parse(value) as ConsumedEvent;
    if (this.seen.has(event.id)) return false;
    this.seen.add(event.id);
    const validate = this.schemas.get(event.type);
    if (!validate) {
      this.ignoredTypes.add(event.type);
      return true;
    }
    if (!validate(JSON.parse(value))) {
      this.problems.push(`${event.type} ${event.id}: ${JSON.stringify(validate.errors)}`);
      return true;
    }
    this.reduce(event);
    return true;
  }

  private reduce({ type, subject: id, data }: ConsumedEvent): void {
    const role = data.role as ReplicaRole | undefined;
    const text = (field: string) => (typeof data[field] === 'string' ? (data[field] as string) : undefined);
    switch (type) {
      case 'UserInvited':
        this.held.set(id, withoutUndefined({ email: text('email')!, name: text('name'), role: pickRole(role!), status: 'pending' }));
        return;
      case 'UserJoined':
        // The whole user travels: an upsert, whether or not an invitation was seen before.
        this.held.set(id, { email: text('email')!, name: text('name')!, username: text('username')!, role: pickRole(role!), status: 'active' });
        return;
      case 'UserInvitationResent':
        // The invitation as it stands: e-mail, name and role are current.
        this.change(id, type, (user) => withoutUndefined({ ...user, email: text('email')!, name: text('name') ?? user.name, role: pickRole(role!) }));
        return;
      case 'UserInvitationRevoked':
      case 'UserDeleted':
        if (!this.held.delete(id)) this.problems.push(`${type} for unknown user ${id}`);
        return;
      case 'UserUpdated': {
        const changes = data.changes as { name?: string };
        this.change(id, type, (user) => (changes.name !== undefined ? { ...user, name: changes.name } : user));
        return;
      }
      case 'UserRoleChanged':
        this.change(id, type, (user) => ({ ...user, role: pickRole(role!) }));
        return;
      case 'UserDeactivated':
        this.change(id, type, (user) => ({ ...user, status: 'deactivated' }));
        return;
      case 'UserReactivated':
        this.change(id, type, (user) => ({ ...user, status: data.status as 'active' | 'pending' }));
        return;
      case 'RoleCreated':
        this.roleNames.set(id, text('name')!);
        return;
      case 'RoleChanged': {
        const changes = data.changes as { name?: string };
        if (changes.name !== undefined) this.roleNames.set(id, changes.name);
        return;
      }
      case 'RoleDeleted':
        // Nobody held it: no user of the copy names it any more.
        this.roleNames.delete(id);
        return;
      default:
        // Documented but not about the user set (PasswordResetRequested): nothing to keep.
        this.ignoredTypes.add(type);
    }
  }

  private change(id: string, type: string, update: (user: ReplicaUser) => ReplicaUser): void {
    const user = this.held.get(id);
    if (!user) {
      this.problems.push(`${type} for unknown user ${id}`);
      return;
    }
    this.held.set(id, update(user));
  }
}

function pickRole(role: ReplicaRole): ReplicaRole {
  return { _id: role._id, name: role.name };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
