import {
  ANONYMOUS,
  AuditActions,
  type AuditAction,
  type AuditActor,
  type AuditChange,
  type AuditEntry,
  type AuditOutcome,
  type AuditTarget,
  assertNothingSecret,
} from '../../domain/audit/audit-entry';
import { DomainError } from '../../domain/shared/domain-error';
import type { User } from '../../domain/users/user';
import type { Actor } from '../auth/actor';
import type { AuditTrail } from '../ports/audit-trail.port';
import type { Clock } from '../ports/clock.port';
import type { IdGenerator } from '../ports/id-generator.port';
import type { Pseudonyms } from '../ports/pseudonyms.port';
import type { RequestOrigin } from '../ports/request-origin.port';
import type { UserRepository } from '../ports/user-repository.port';

/** What a use case knows about what happened; the recorder adds the id, the time and where the request came from. */
export interface AuditFact {
  action: AuditAction;
  /** `success` unless told. */
  outcome?: AuditOutcome;
  code?: string | null;
  actor: AuditActor;
  target?: AuditTarget | null;
  changes?: readonly AuditChange[];
}

export interface AuditRecorderDeps {
  clock: Clock;
  idGenerator: IdGenerator;
  requestOrigin: RequestOrigin;
  /** The process-wide trail: an entry written on its own. */
  auditTrail: AuditTrail;
  /** AUDIT_TRAIL: false writes nothing (only to measure the trail's cost). */
  auditEnabled?: boolean;
  /** What names a text typed for no account (typedName). */
  pseudonyms: Pseudonyms;
}

/**
 * Builds audit entries and writes the ones that ride no unit of work. An entry that describes a change
 * is written through the change's own scope (`scope.audit.record(recorder.entry(…))`), built inside the
 * closure: a retried transaction builds (and writes) it again, once.
 */
export class AuditRecorder {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly origin: RequestOrigin;
  private readonly trail: AuditTrail;
  private readonly enabled: boolean;
  private readonly pseudonyms: Pseudonyms;

  constructor(deps: AuditRecorderDeps) {
    this.pseudonyms = deps.pseudonyms;
    this.enabled = deps.auditEnabled ?? true;
    this.clock = deps.clock;
    this.ids = deps.idGenerator;
    this.origin = deps.requestOrigin;
    this.trail = deps.auditTrail;
  }

  entry(fact: AuditFact): AuditEntry {
    const changes = fact.changes ?? [];
    assertNothingSecret(changes);
    const { requestId, address, userAgent } = this.origin.current();
    const { actor, target } = fact;
    // Cut to what the trail keeps (AUDIT_LIMITS), here, so every store holds the same entry.
    return {
      id: this.ids.next(),
      occurredAt: this.clock.now().getTime(),
      action: fact.action,
      outcome: fact.outcome ?? 'success',
      code: cut(fact.code ?? null, AUDIT_LIMITS.code),
      actor: { type: actor.type, id: cut(actor.id, AUDIT_LIMITS.id), name: cut(actor.name, AUDIT_LIMITS.name) },
      target: target ? { type: target.type, id: cut(target.id, AUDIT_LIMITS.id), snapshot: cut(target.snapshot, AUDIT_LIMITS.name) } : null,
      source: { address: cut(address, AUDIT_LIMITS.address), userAgent: cut(userAgent, AUDIT_LIMITS.userAgent) },
      requestId: cut(requestId, AUDIT_LIMITS.requestId),
      changes,
    };
  }

  /**
   * What the trail keeps of a name typed for no account (a sign-in's unknown username): `typed:` and its pseudonym,
   * the same for the same name, so failures on one name still group together, and never the text, which may be a
   * password typed into the wrong field (an entry goes to every reader of the trail and to its Kafka topic).
   */
  typedName(text: string): string {
    return `typed:${this.pseudonyms.of(text)}`;
  }

  /** The facts' entries, to be written by an adapter with its own change (none when the trail is off). */
  entries(...facts: AuditFact[]): AuditEntry[] {
    return this.enabled ? facts.map((fact) => this.entry(fact)) : [];
  }

  /** Writes the facts through `trail`: a unit of work's (`scope.audit`), so they commit with its change. */
  async write(trail: AuditTrail, ...facts: AuditFact[]): Promise<void> {
    if (this.enabled && facts.length > 0) await trail.record(this.entries(...facts));
  }

  /** Writes facts that describe no change of their own (a sign-in, a token granted), on their own. */
  async record(...facts: AuditFact[]): Promise<void> {
    await this.write(this.trail, ...facts);
  }

  /** Runs `action`; a refusal (a domain error, its transaction rolled back) is written on its own, then rethrown. */
  async guard<T>(actor: Actor | AuditActor, action: AuditAction, target: AuditTarget | null, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DomainError) await this.refused(actor, action, target, error.code);
      throw error;
    }
  }

  /** A refused action (its transaction rolled back): written on its own, the actor by id. */
  async refused(actor: Actor | AuditActor, action: AuditAction, target: AuditTarget | null, code: string): Promise<void> {
    await this.record({ action, outcome: 'failure', code, actor: 'type' in actor ? actor : actorById(actor), target });
  }

  /**
   * A refused action's entry with the actor and the target named as they are now (a refusal is rare, and an auditor
   * reads names): the actor through `users`, the target by `targetName`. By id alone when a read fails or finds
   * nothing: the names are a courtesy, the ids are the record.
   */
  async refusedNamed(
    actor: Actor,
    action: AuditAction,
    target: AuditTarget,
    code: string,
    names: { users?: Pick<UserRepository, 'findById'>; targetName?: () => Promise<string | null> },
  ): Promise<void> {
    let who = actorById(actor);
    let named = target;
    try {
      if (names.users) who = await this.actorOf(actor, names.users);
      const snapshot = names.targetName ? await names.targetName() : null;
      if (snapshot !== null) named = { ...target, snapshot };
    } catch {
      // Named by id, as before: the refusal is written whatever.
    }
    await this.record({ action, outcome: 'failure', code, actor: who, target: named });
  }

  /**
   * The actor as the trail names it: a service account by its client id, a user by the username it has
   * now, read through `users` (a transaction's, inside a unit of work).
   */
  async actorOf(actor: Actor, users: Pick<UserRepository, 'findById'>): Promise<AuditActor> {
    if (actor.clientId !== undefined) return actorById(actor);
    return userActor(await users.findById(actor.userId)) ?? actorById(actor);
  }
}

/** The actor without a read: a service account by its client id, a user by id alone. */
export function actorById(actor: Actor): AuditActor {
  return actor.clientId !== undefined ? { type: 'service_account', id: actor.userId, name: actor.clientId } : { type: 'user', id: actor.userId, name: null };
}

/** The longest text each field keeps, in characters (the columns' lengths). */
export const AUDIT_LIMITS = { code: 64, id: 64, name: 255, address: 64, userAgent: 255, requestId: 128 } as const;

function cut(value: string | null, length: number): string | null {
  // No more UTF-16 units than the limit: no more characters either (the usual case, without splitting the string).
  if (value === null || value.length <= length) return value;
  const chars = Array.from(value);
  return chars.length <= length ? value : chars.slice(0, length).join('');
}

export function userActor(user: User | null): AuditActor | null {
  return user ? { type: 'user', id: user.id, name: user.username ?? user.email } : null;
}

export function userTarget(user: User): AuditTarget {
  return { type: 'user', id: user.id, snapshot: user.username ?? user.email };
}

/** The entry of an account's lock when a refused attempt locked it (`lockedUntil` set, as LoginAttempts.failed tells); none otherwise. */
export function lockFacts(actor: AuditActor, target: AuditTarget, lockedUntil: Date | null): AuditFact[] {
  return lockedUntil ? [{ action: AuditActions.lockedOut, code: 'threshold_reached', actor, target, changes: [{ field: 'locked_until', before: null, after: lockedUntil.toISOString() }] }] : [];
}

export { ANONYMOUS };
