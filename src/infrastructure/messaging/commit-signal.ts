/**
 * Tells the outbox relay that a transaction committed new events, so it publishes at once instead
 * of at its next poll. Unit of work and relay both depend on it, not on each other.
 */
export class CommitSignal {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
