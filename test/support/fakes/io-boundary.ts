/**
 * Yields to the event loop the way real I/O does, so a fake resolves in a later turn and a
 * caller that forgets an `await` (or races two calls) behaves as it would against a database.
 */
export function ioBoundary(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
