import { asClass, asFunction } from 'awilix';
import { AuditRecorder } from '../application/audit/audit-recorder';
import { ExportAuditEventsUseCase, ListAuditEventsUseCase } from '../application/audit/read-audit-events.use-case';
import type { AuditLog, AuditTrail } from '../application/ports/audit-trail.port';
import type { Clock } from '../application/ports/clock.port';
import type { IdGenerator } from '../application/ports/id-generator.port';
import type { Pseudonyms } from '../application/ports/pseudonyms.port';
import type { RequestOrigin } from '../application/ports/request-origin.port';
import { AsyncLocalRequestOrigin } from './audit/async-local-request-origin';
import { AuditMaintenance } from './audit/audit-maintenance';
import type { Config } from './config/config';
import type { Logger } from './logging/logger';
import type { CommitSignal } from './messaging/commit-signal';
import { AuditRetentionSweeper } from './persistence/typeorm/audit/audit-retention-sweeper';
import { AuditSealer } from './persistence/typeorm/audit/audit-sealer';
import { AuditVerifier } from './persistence/typeorm/audit/audit-verifier';
import { TypeOrmAuditLog } from './persistence/typeorm/audit/typeorm-audit-log';
import { StandaloneTypeOrmAuditTrail } from './persistence/typeorm/audit/typeorm-audit-trail';
import type { PersistenceCradle, Registrations } from './persistence-registrations';

/** The audit trail's part of the API's cradle (#23). */
export interface AuditCradle {
  /** Where the current request came from (the HTTP edge sets it per request). */
  requestOrigin: RequestOrigin;
  /** Entries written on their own (a sign-in, a token granted): not in a unit of work. */
  auditTrail: AuditTrail;
  auditRecorder: AuditRecorder;
  auditLog: AuditLog;
  auditSealer: AuditSealer;
  auditRetentionSweeper: AuditRetentionSweeper;
  auditVerifier: AuditVerifier;
  /** Seals and sweeps in the background of the API process. */
  auditMaintenance: AuditMaintenance;
  listAuditEvents: ListAuditEventsUseCase;
  exportAuditEvents: ExportAuditEventsUseCase;
}

type Needs = AuditCradle & PersistenceCradle & { clock: Clock; idGenerator: IdGenerator; logger: Logger; commitSignal: CommitSignal; pseudonyms: Pseudonyms };

export function auditRegistrations(config: Pick<Config, 'audit'>): Registrations<AuditCradle> {
  const { sealKey, retentionSeconds, enabled } = config.audit;
  return {
    requestOrigin: asClass(AsyncLocalRequestOrigin).singleton(),
    auditTrail: asFunction(({ dataSource, sqliteWriteQueue }: Needs) => new StandaloneTypeOrmAuditTrail({ manager: dataSource.manager, sqliteWriteQueue })).singleton(),
    auditRecorder: asFunction(
      ({ clock, idGenerator, requestOrigin, auditTrail, pseudonyms }: Needs) => new AuditRecorder({ clock, idGenerator, requestOrigin, auditTrail, pseudonyms, auditEnabled: enabled }),
    ).singleton(),
    auditLog: asFunction(({ dataSource, sqliteWriteQueue }: Needs) => new TypeOrmAuditLog({ dataSource, sqliteWriteQueue })).singleton(),
    auditSealer: asFunction(
      ({ dataSource, sqliteWriteQueue, commitSignal, clock, logger }: Needs) =>
        new AuditSealer({
          dataSource,
          sqliteWriteQueue,
          sealKey,
          now: () => clock.now().getTime(),
          onEventsCommitted: () => commitSignal.notify('audit'),
          onWindowReset: () =>
            logger.error('audit_chain.entry_seals_from was cleared or moved behind the service: entries without a seal are refused from now on; run audit:verify'),
          onRefused: (ids) =>
            logger.error({ entries: ids.slice(0, 20), count: ids.length }, 'audit entries without a valid seal were inserted behind the service: they are not linked; run audit:verify'),
        }),
    ).singleton(),
    auditRetentionSweeper: asFunction(
      ({ dataSource, sqliteWriteQueue, clock }: Needs) => new AuditRetentionSweeper({ dataSource, sqliteWriteQueue, clock, retentionSeconds, ...(sealKey ? { sealKey } : {}) }),
    ).singleton(),
    auditVerifier: asFunction(
      ({ dataSource, sqliteWriteQueue, clock }: Needs) => new AuditVerifier({ dataSource, sqliteWriteQueue, sealKey, now: () => clock.now().getTime() }),
    ).singleton(),
    auditMaintenance: asFunction(
      ({ auditSealer, auditRetentionSweeper, clock, logger }: Needs) => new AuditMaintenance({ auditSealer, auditRetentionSweeper, clock, logger }),
    )
      .singleton()
      .disposer((maintenance) => maintenance.stop()),
    listAuditEvents: asClass(ListAuditEventsUseCase).singleton(),
    exportAuditEvents: asClass(ExportAuditEventsUseCase).singleton(),
  };
}
