import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../../src/infrastructure/config/config';

const ROOT = path.resolve(__dirname, '../../..');
type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  read_only?: boolean;
  ports?: string[];
};

/** The structure of docker-compose.yml; test/e2e/image/compose.e2e.test.ts brings it up. */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;

  it('has the stack: MySQL 8.4, Kafka 3.9 (KRaft), Mailpit, a one-shot migrate, api and mailer', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'kafka', 'mailer', 'mailpit', 'migrate', 'mysql']);
    expect(services.mysql.image).toBe('mysql:8.4');
    expect(services.kafka.image).toMatch(/^apache\/kafka:3\.9\.\d+$/);
    expect(services.kafka.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(services.mailpit.image).toMatch(/^axllent\/mailpit/);
  });

  it('runs the one image, its command selecting the process, read-only', () => {
    for (const [name, command] of [['migrate', 'migrate'], ['api', 'api'], ['mailer', 'mailer']] as const) {
      expect(services[name].command).toEqual([command]);
      expect(services[name].build).toBe('.');
      expect(services[name].image).toBe('access-control:local');
      expect(services[name].read_only).toBe(true);
    }
    const entrypoint = readFileSync(path.join(ROOT, 'docker-entrypoint.sh'), 'utf8');
    for (const command of ['api', 'mailer', 'migrate']) expect(entrypoint).toMatch(new RegExp(`^\\s+${command}\\) exec node `, 'm'));
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENTRYPOINT \["\/app\/docker-entrypoint\.sh"\]$/m);
  });

  it('runs node in the image with the flags and allocator settings `npm start` and the benchmarks use (package.json config)', () => {
    const { config, scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      config: { nodeFlags: string; mallocEnv: string };
      scripts: Record<string, string>;
    };
    expect(config.nodeFlags).toMatch(/^--max-semi-space-size=\d+$/);
    expect(config.mallocEnv).toMatch(/^MALLOC_MMAP_THRESHOLD_=\d+$/);
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^ENV NODE_OPTIONS=${config.nodeFlags}$`, 'm'));
    expect(dockerfile).toMatch(new RegExp(`^ENV ${config.mallocEnv}$`, 'm'));
    for (const script of ['start', 'start:mailer']) expect(scripts[script]).toMatch(/^exec env \$npm_package_config_mallocEnv node \$npm_package_config_nodeFlags /);
  });

  it('starts in order: database and broker healthy, then the migration done, then api and mailer', () => {
    for (const name of ['mysql', 'kafka', 'mailpit', 'api', 'mailer']) expect(services[name].healthcheck?.test.length).toBeGreaterThan(0);
    // The migration creates the schema and the Kafka topics: both must be up.
    expect(services.migrate.depends_on).toEqual({ mysql: { condition: 'service_healthy' }, kafka: { condition: 'service_healthy' } });
    expect(services.migrate.environment?.KAFKA_BROKERS).toBe('kafka:9092');
    for (const name of ['api', 'mailer']) {
      expect(services[name].depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(services[name].depends_on?.kafka).toEqual({ condition: 'service_healthy' });
    }
    expect(services.mailer.depends_on?.mailpit).toEqual({ condition: 'service_healthy' });
  });

  it('sets only variables the service reads, and bootstraps the admin from the environment', () => {
    const known = new Set<string>(CONFIG_VARIABLES);
    for (const name of ['migrate', 'api', 'mailer']) {
      expect(Object.keys(services[name].environment ?? {}).filter((v) => !known.has(v))).toEqual([]);
    }
    expect(services.api.environment?.MIGRATE_ON_START).toBe('false');
    expect(services.api.environment?.ADMIN_PASSWORD).toMatch(/^\$\{ADMIN_PASSWORD:\?/);
    expect(services.mailer.environment?.SMTP_URL).toBe('smtp://mailpit:1025');
  });

  it('names the api by the host port it is published on (API_PORT): links, the token issuer and origins follow it', () => {
    const published = /^(\$\{API_PORT:-\d+\}):3000$/.exec(services.api.ports?.[0] ?? '')?.[1];
    expect(published).toBe('${API_PORT:-3000}');
    for (const name of ['api', 'mailer']) expect({ name, url: services[name].environment?.PUBLIC_URL }).toEqual({ name, url: `http://localhost:${published}` });
  });
});
