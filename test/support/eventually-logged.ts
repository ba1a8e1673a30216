/** The first value `read` answers (not undefined) within `timeoutMs`, polled every 50 ms: a log line a process writes on its own time. */
export async function eventuallyDefined<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing came within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
