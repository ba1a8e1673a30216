import { ConfigError, loadConfig } from '../../src/infrastructure/config/config';

/** What loadConfig refuses in `env`, one line a problem; none when it accepts it. */
export function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
