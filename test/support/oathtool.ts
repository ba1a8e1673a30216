import { execFileSync } from 'node:child_process';

/**
 * A TOTP code from Debian's `oathtool` (scripts/ensure-oathtool.sh installs it): an implementation independent
 * of the library under test. `offsetSteps` moves the clock by whole 30-second steps (1: the next step's code),
 * from `now`: a test that checks against an instant of its own passes it, as the clock may cross a step between
 * that instant and this call.
 */
export function oathtoolTotp(base32Secret: string, offsetSteps = 0, now: Date = new Date()): string {
  const at = Math.floor(now.getTime() / 1000) + offsetSteps * 30;
  try {
    return execFileSync('oathtool', ['--totp', '--base32', `--now=@${at}`, base32Secret], { encoding: 'utf8' }).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('oathtool is not installed: apt-get install oathtool (scripts/ensure-oathtool.sh)');
    throw error;
  }
}
