import type { AuditVerifier } from '../../infrastructure/persistence/typeorm/audit/audit-verifier';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../infrastructure/config/config';
import { buildContainer } from '../../infrastructure/container';
import { createLogger } from '../../infrastructure/logging/logger';
import { routeProcessWarnings } from '../../infrastructure/logging/process-warnings';
import { runMigrations } from '../../infrastructure/persistence/typeorm/migrate';
import { DomainError } from '../../domain/shared/domain-error';
import { describeError } from '../../infrastructure/logging/logger';
import { createTopics, exitOnStartupError, prepareDatabase } from '../process-runtime';

const USAGE = `usage:
  npm run cli -- migrate
      apply pending database migrations and, with KAFKA_BROKERS, create the Kafka topics; exit
  npm run cli -- create-admin --username NAME --email ADDRESS [--name "Full Name"]
      create a joined admin; the password is read from ADMIN_PASSWORD or, if unset, from standard input
      (never from the command line, where other users of the machine could see it)
  npm run cli -- audit-verify      (or: npm run audit:verify)
      walk the audit trail's hash chain from its retention checkpoint and name the first entry that breaks
      (edited, deleted or inserted); exit 1 when one does`;

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'migrate' && command !== 'create-admin' && command !== 'audit-verify') {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === '--help' ? 0 : 2;
  }
  let config;
  try {
    // The CLI never bootstraps the admin from the environment: it does what it is told. So the ADMIN_*
    // group is not read as a bootstrap (ADMIN_PASSWORD alone is create-admin's password, not half a group).
    const { ADMIN_USERNAME: _u, ADMIN_EMAIL: _e, ADMIN_PASSWORD: _p, ADMIN_NAME: _n, ...env } = process.env;
    config = { ...loadConfig(env), admin: null };
  } catch (error) {
    exitOnStartupError(error);
  }
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  routeProcessWarnings(logger);
  const container = buildContainer(config, logger);
  try {
    if (command === 'migrate') {
      await prepareDatabase(container, { migrate: false });
      const applied = await runMigrations(container.cradle.dataSource);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
      if (config.kafka) {
        const topics = await createTopics(config.kafka, logger);
        if (topics?.created.length) process.stdout.write(`kafka topics created: ${topics.created.join(', ')}\n`);
        if (topics?.existing.length) process.stdout.write(`kafka topics exist: ${topics.existing.join(', ')}\n`);
      }
      return 0;
    }
    if (command === 'audit-verify') {
      await prepareDatabase(container, { migrate: false, topics: false });
      return await verifyAuditTrail(container.cradle.auditVerifier);
    }
    const { values } = parseArgs({
      args: rest,
      options: { username: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
    });
    if (!values.username || !values.email) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const password = process.env.ADMIN_PASSWORD ?? (await readStdinLine());
    await prepareDatabase(container, { migrate: config.migrateOnStart, topics: false });
    const outcome = await container.cradle.createAdmin.execute({
      username: values.username,
      email: values.email,
      name: values.name,
      password,
    });
    process.stdout.write(outcome.created ? `admin ${values.username} created\n` : 'a user with that username or e-mail exists already; nothing changed\n');
    return outcome.created ? 0 : 1;
  } catch (error) {
    process.stderr.write(`${error instanceof DomainError || error instanceof ConfigError ? error.message : describeError(error)}\n`);
    return 1;
  } finally {
    await container.dispose();
  }
}

async function verifyAuditTrail(verifier: AuditVerifier): Promise<number> {
  const result = await verifier.verify();
  if (result.ok) {
    process.stdout.write(`audit trail verified: ${result.checked} entries in the chain, ${result.unsealed} not sealed yet\n`);
    return 0;
  }
  const broken = result.firstBreak!;
  process.stdout.write(`audit trail BROKEN at #${broken.seq}${broken.id ? ` (${broken.id})` : ''}: ${broken.message}\n`);
  return 1;
}

async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password: ');
  let data = '';
  for await (const chunk of process.stdin) {
    data += chunk;
    if (data.includes('\n')) break;
  }
  return data.split(/\r?\n/)[0];
}

