// Jest's default order runs the files it has no timings for (a fresh clone: all of them) largest first, so a small
// file that runs for minutes (the sql.js contracts: about 6 minutes in `make test` on 2026-11-28) started last and
// was the run's whole tail. These files start first, slowest first (their times in that run); the rest keep Jest's
// order (failed first, then by the last run's time when it has one, else by size).
const Sequencer = require('@jest/test-sequencer').default;

const SLOW_SUITES = [
  'test/contract/contracts.sqljs.test.ts', // 375 s
  'test/integration/bench/bench-smoke.test.ts', // 264 s
  'test/e2e/security/enumeration.e2e.test.ts', // 256 s
  'test/integration/mailer/mailer-process.test.ts', // 146 s
  'test/integration/messaging/kafka-topics.test.ts', // 138 s
  'test/e2e/security/fuzz.e2e.test.ts', // 114 s
  'test/e2e/full-stack.e2e.test.ts', // 112 s
  'test/e2e/image/service-image.e2e.test.ts', // 101 s
];

class SlowSuitesFirst extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const rank = (test) => {
      const index = SLOW_SUITES.findIndex((suite) => test.path.endsWith(suite));
      return index < 0 ? SLOW_SUITES.length : index;
    };
    // Array.prototype.sort is stable: within a rank, Jest's order stands.
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowSuitesFirst;
