import { asFunction } from 'awilix';
import { RevocationWatch } from './caching/revocation-watch';
import type { Config } from './config/config';
import { describeError, type Logger } from './logging/logger';
import { readRevocationSnapshot, requestIsRevoking, revocationShardOf } from './persistence/typeorm/revocation-epochs';
import type { PersistenceCradle, Registrations } from './persistence-registrations';

/** The revocation signal's part of the API's cradle (#26). */
export interface RevocationCradle {
  /** Polls the revocation epochs; started by the server, never by a test's in-process app (which then reads every request). */
  revocationWatch: RevocationWatch;
}

/** A lost database is reported at most this often by the poll (it runs several times a second). */
const REPORT_EVERY_MS = 30_000;

export function revocationRegistrations(config: Pick<Config, 'revocationWindowSeconds'>): Registrations<RevocationCradle> {
  const windowMs = Math.round(config.revocationWindowSeconds * 1000);
  return {
    revocationWatch: asFunction(({ dataSource, sqliteWriteQueue, logger }: PersistenceCradle & { logger: Logger }) => {
      let reportedAt = -Infinity;
      return new RevocationWatch({
        windowMs,
        // Three polls a window: one slow poll does not make a replica distrust its signal.
        pollEveryMs: Math.max(20, Math.floor(windowMs / 3)),
        read: () => sqliteWriteQueue.serialize(() => readRevocationSnapshot(dataSource.manager)),
        shardOf: revocationShardOf,
        bypass: requestIsRevoking,
        onPollFailed: (error) => {
          if (performance.now() - reportedAt < REPORT_EVERY_MS) return;
          reportedAt = performance.now();
          logger.warn({ reason: describeError(error) }, 'revocation signal not readable; every request reads its subject until it is');
        },
      });
    })
      .singleton()
      .disposer((watch) => watch.stop()),
  };
}
