/**
 * What a commit added to the outbox: `events` (at least one user, role or service-account event, which a
 * consumer such as the mailer waits for), or `audit` (the audit topic's events of entries the sealer just
 * linked, #23: nobody waits on them, so the relay may gather more of them into one pass; see
 * `OutboxRelayOptions.auditLingerMs`).
 */
export type CommittedKind = 'events' | 'audit';

/**
 * Tells the outbox relay that a transaction committed new events, so it publishes at once instead
 * of at its next poll. Unit of work and relay both depend on it, not on each other.
 */
export class CommitSignal {
  private readonly listeners = new Set<(kind: CommittedKind) => void>();

  notify(kind: CommittedKind = 'events'): void {
    for (const listener of this.listeners) listener(kind);
  }

  subscribe(listener: (kind: CommittedKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
