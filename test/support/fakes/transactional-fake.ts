import { ioBoundary } from './io-boundary';

/**
 * What every store of InMemoryUnitOfWork shares: it answers on a later turn of the event loop, as
 * a database would, and a transaction's copy refuses to be used once its transaction has ended.
 */
export abstract class TransactionalFake {
  private closed = false;

  /** Ends this copy's transaction: any later use is a bug in the code under test. */
  close(): void {
    this.closed = true;
  }

  protected async io(): Promise<void> {
    await ioBoundary();
    if (this.closed) throw new Error(`${this.constructor.name}: used after its transaction ended`);
  }
}
