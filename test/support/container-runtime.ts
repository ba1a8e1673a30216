/** Undefined when a container runtime answers within the timeout, else the reason it did not. */
export async function probeContainerRuntime(timeoutMs = 3_000): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
    });
    const probe = getContainerRuntimeClient();
    probe.catch(() => undefined); // a late rejection after the timeout must not go unhandled
    await Promise.race([probe, timeout]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
