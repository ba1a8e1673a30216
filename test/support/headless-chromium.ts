import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** The machine's Chromium (CHROMIUM_PATH, or Debian's), installed by scripts/ensure-chromium.sh under `make test`. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => !!path && existsSync(path),
);

/** The Chromium binary; without one, an error saying how to get it (never a skip). */
export function chromiumPath(): string {
  if (!CHROMIUM) throw new Error('No Chromium for the browser test: run scripts/ensure-chromium.sh (make test and make bench do) or set CHROMIUM_PATH');
  return CHROMIUM;
}

/** A headless Chromium for the page tests; without one the test fails saying how to get it (never skips). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
