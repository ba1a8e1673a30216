type Listener = (userId: string) => void;

/**
 * In-process notice that a user row changed (updated, deleted, signed out), sent by the user
 * repository once the statement has run, so caches of this process (the actor cache) drop the user at once.
 * One per process, registered by the composition root and shared by every user repository in it.
 */
export class UserChangeNotices {
  private readonly listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(userId: string): void {
    for (const listener of this.listeners) listener(userId);
  }
}
