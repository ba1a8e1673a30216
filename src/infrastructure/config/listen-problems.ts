import { ConfigError } from './config';

/**
 * A socket the process cannot listen on, told as the configuration problem it is, naming the variable that chose the
 * port (`PORT`, `METRICS_PORT`, `MAILER_METRICS_PORT`) and what to do: printed as any bad value is, not as a stack
 * trace. Any other error is answered as it came.
 */
export function listenProblem(error: unknown, variable: string, port: number, host: string): unknown {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (code === 'EADDRINUSE') return new ConfigError([`${variable}: port ${port} on ${host} is in use by another process; stop it, or set ${variable} to a free port`]);
  if (code === 'EACCES') return new ConfigError([`${variable}: port ${port} needs privileges this process lacks; choose a port above 1023`]);
  if (code === 'EADDRNOTAVAIL') return new ConfigError([`HOST: ${host} is not an address of this machine; 0.0.0.0 listens on all of them`]);
  // A name the resolver does not know, or text no address can be (999.1.1.1 is looked up as a name).
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL') {
    return new ConfigError([`HOST: ${host} is neither an address nor a name this machine resolves; 0.0.0.0 listens on all of them`]);
  }
  return error;
}

/** Runs `listen`, answering a failure to listen as listenProblem tells it. */
export async function listening<T>(variable: string, port: number, host: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    throw listenProblem(error, variable, port, host);
  }
}
