import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IssueInvitationUseCase } from '../../../src/application/invitations/issue-invitation.use-case';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { buildMailerContainer } from '../../../src/infrastructure/mailer-container';

describe("the mailer process's composition root", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-mailer-root-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('resolves the invitation mail and its database side, and nothing of the api', async () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: dataDir, KAFKA_BROKERS: '127.0.0.1:9', LOG_LEVEL: 'silent' });
    const container = buildMailerContainer(config, createLogger('silent'));
    try {
      expect(container.cradle.issueInvitation).toBeInstanceOf(IssueInvitationUseCase);
      // One of each per process: the use case's unit of work and the store share the write queue.
      expect(container.cradle.sqliteWriteQueue).toBe(container.cradle.sqliteWriteQueue);
      for (const apiOnly of ['signIn', 'outboxRelay', 'createAdmin', 'eventPublisher', 'rateLimitCounter']) {
        expect({ apiOnly, registered: container.hasRegistration(apiOnly) }).toEqual({ apiOnly, registered: false });
      }
      // Nothing connected: resolving builds objects only, the process connects when it starts.
      expect(container.cradle.dataSource.isInitialized).toBe(false);
    } finally {
      await container.dispose();
    }
  });
});
