import type { SingleUseToken } from '../../../src/domain/shared/single-use-token';
import { TransactionalFake } from './transactional-fake';

/** A single-use link's row, one per user (an invitation, a password reset): only its token's hash. */
export type SingleUseTokenRow = SingleUseToken;
type Invitation = SingleUseTokenRow;

/** A write made through a transactional copy, replayed (and so re-checked) on commit. */
type Write =
  | { kind: 'replace'; row: Invitation }
  | { kind: 'markUsed'; userId: string; tokenHash: string; at: Date }
  | { kind: 'delete'; userId: string };

/**
 * A table of single-use links as the database holds it (`invitations`, `password_resets`): one row per user (the primary key), the token hash unique.
 * Rows are copied in and out, as a database read would be. There is no foreign key to the users:
 * a test that deletes a user without deleting its invitation sees the invitation left behind.
 * `markUsed` and `deleteForUser` of a user without an invitation change nothing, as an UPDATE or
 * DELETE matching no row.
 */
export abstract class InMemorySingleUseTokenRows extends TransactionalFake {
  private rows = new Map<string, Invitation>();
  private readonly writes: Write[] = [];

  constructor(invitations: readonly Invitation[] = []) {
    super();
    this.seed(...invitations);
  }

  /** An empty table of the same kind (a transaction's copy). */
  protected abstract empty(): this;
  /** What a second use of one link throws at commit (the use case's "already used"). */
  protected abstract usedError(): Error;

  /** Arranges existing invitations directly, without a transaction (test setup only). */
  seed(...invitations: Invitation[]): void {
    for (const invitation of invitations) replaceIn(this.rows, copy(invitation));
  }

  async replaceForUser(invitation: Invitation): Promise<void> {
    await this.io();
    const row = copy(invitation);
    replaceIn(this.rows, row);
    this.writes.push({ kind: 'replace', row });
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    await this.io();
    const row = [...this.rows.values()].find((r) => r.tokenHash === tokenHash);
    return row ? copy(row) : null;
  }

  async markUsed({ userId, tokenHash }: { userId: string; tokenHash: string }, at: Date): Promise<boolean> {
    await this.io();
    const when = new Date(at);
    const changed = markUsedIn(this.rows, userId, tokenHash, when);
    if (changed) this.writes.push({ kind: 'markUsed', userId, tokenHash, at: when });
    return changed;
  }

  async findForUser(userId: string): Promise<Invitation | null> {
    await this.io();
    const row = this.rows.get(userId);
    return row ? copy(row) : null;
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.io();
    this.rows.delete(userId);
    this.writes.push({ kind: 'delete', userId });
  }

  // ---- inspection, for assertions (synchronous: not part of the port) ----

  /** The user's invitation as committed, if any. */
  forUser(userId: string): Invitation | undefined {
    const row = this.rows.get(userId);
    return row ? copy(row) : undefined;
  }

  all(): Invitation[] {
    return [...this.rows.values()].map(copy);
  }

  get count(): number {
    return this.rows.size;
  }

  // ---- transactions, driven by InMemoryUnitOfWork ----

  /** A copy that reads what is committed now; its writes stay its own until committed. */
  beginTransaction(): this {
    const transaction = this.empty();
    transaction.rows = new Map(this.rows);
    return transaction;
  }

  /** Replays the copy's writes on what is committed now (checking the keys again); returns the step that applies them. */
  prepareCommit(transaction: this): () => void {
    const staged = new Map(this.rows);
    for (const write of transaction.writes) {
      if (write.kind === 'replace') {
        replaceIn(staged, write.row);
      } else if (write.kind === 'markUsed') {
        // Like `UPDATE … WHERE used_at IS NULL` waiting on a concurrent commit: a second use finds no row to change.
        if (!markUsedIn(staged, write.userId, write.tokenHash, write.at)) throw this.usedError();
      } else {
        staged.delete(write.userId);
      }
    }
    return () => {
      this.rows = staged;
    };
  }


}

/** Delete then insert, as the real repository does: the unique token hash is checked against other users' rows. */
function replaceIn(rows: Map<string, Invitation>, row: Invitation): void {
  for (const other of rows.values()) {
    if (other.userId !== row.userId && other.tokenHash === row.tokenHash) {
      throw new Error(`single-use token rows: duplicate token hash ${row.tokenHash}`);
    }
  }
  rows.set(row.userId, row);
}

/** Marks the user's unused link with this hash used; false when there is none, it was replaced, or it was used already. */
function markUsedIn(rows: Map<string, Invitation>, userId: string, tokenHash: string, at: Date): boolean {
  const row = rows.get(userId);
  if (!row || row.tokenHash !== tokenHash || row.usedAt !== undefined) return false;
  rows.set(userId, copy({ ...row, usedAt: at }));
  return true;
}

function copy(invitation: Invitation): Invitation {
  return Object.freeze({
    userId: invitation.userId,
    tokenHash: invitation.tokenHash,
    createdAt: new Date(invitation.createdAt),
    expiresAt: new Date(invitation.expiresAt),
    ...(invitation.usedAt !== undefined ? { usedAt: new Date(invitation.usedAt) } : {}),
  });
}
