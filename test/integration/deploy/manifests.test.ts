/**
 * The Kubernetes manifests (deploy/overlays/example, rendered by `kubectl kustomize`) against the
 * Kubernetes schemas (kubernetes-models) and against the service itself: every env var is one the
 * service reads, every probe path is a route the process serves, every port is the one it listens on,
 * and the shutdown timings fit together.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CONFIG_VARIABLES } from '../../../src/infrastructure/config/config';
import { buildHttpApp } from '../../../src/interfaces/http/app';
import { buildContainer } from '../../../src/infrastructure/container';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { createLogger } from '../../../src/infrastructure/logging/logger';

const ROOT = path.resolve(__dirname, '../../..');
/** The grace main.ts (api and mailer) gives itself after SIGTERM before exiting 1. */
const PROCESS_GRACE_SECONDS = 30;
const MAILER_DEFAULT_METRICS_PORT = 9464;
const MAILER_ROUTES = ['/metrics', '/healthz', '/readyz'];
/** The keys the api generates under DATA_DIR when they are unset (configured-keys.ts). */
const LOCAL_KEY_VARIABLES = ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY', 'MFA_ENCRYPTION_KEY'];

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function kubectl(): string | null {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return 'kubectl';
  } catch {
    return null;
  }
}

const KUBECTL = kubectl();
const describeIfKubectl = KUBECTL ? describe : describe.skip;
if (!KUBECTL) {
  console.warn('SKIPPED deploy/ manifest checks: kubectl is not installed (make test installs it with scripts/ensure-kubectl.sh)');
}

function render(): Obj[] {
  const text = execFileSync(KUBECTL!, ['kustomize', path.join(ROOT, 'deploy/overlays/example')], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => doc.toJSON() as Obj);
}

async function validateAgainstSchema(resource: Obj): Promise<void> {
  const [group, version] = resource.apiVersion.includes('/') ? resource.apiVersion.split('/') : ['', resource.apiVersion];
  const modulePath = group === '' ? `kubernetes-models/${version}/${resource.kind}` : `kubernetes-models/${group}/${version}/${resource.kind}`;
  const module = (await import(modulePath)) as Record<string, new (data: Obj) => { validate(): void }>;
  new module[resource.kind](resource).validate();
}

function durationSeconds(value: string): number {
  const match = /^(\d+)(s|m)$/.exec(value);
  if (!match) throw new Error(`unexpected duration ${value}`);
  return Number(match[1]) * (match[2] === 'm' ? 60 : 1);
}

describeIfKubectl('deploy/ (kustomize overlay example)', () => {
  const resources = KUBECTL ? render() : [];
  const byKind = (kind: string) => resources.filter((r) => r.kind === kind);
  const configMap = byKind('ConfigMap').find((c) => c.metadata.name === 'access-control-config')!;
  const workloads = [...byKind('Deployment'), ...byKind('Job')];
  const containersOf = (workload: Obj): Obj[] => workload.spec.template.spec.containers;
  const deployment = (component: string) => byKind('Deployment').find((d) => d.metadata.labels['app.kubernetes.io/component'] === component)!;

  /** Every variable a container gets, literal or from a ConfigMap/Secret, with its literal value when known. */
  function envOf(container: Obj): Map<string, string | undefined> {
    const env = new Map<string, string | undefined>();
    for (const from of container.envFrom ?? []) {
      expect(from.secretRef).toBeUndefined(); // keys of a secret cannot be checked: reference them one by one
      const source = resources.find((r) => r.kind === 'ConfigMap' && r.metadata.name === from.configMapRef.name);
      expect(source).toBeDefined();
      for (const [key, value] of Object.entries(source!.data as Record<string, string>)) env.set(key, value);
    }
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.configMapKeyRef;
      env.set(variable.name, variable.value ?? (ref ? configMap.data[ref.key] : undefined));
    }
    return env;
  }

  it('renders the expected resources, all in one namespace, no secret among them', () => {
    expect(resources.map((r) => `${r.kind}/${r.metadata.name}`).sort()).toEqual(
      [
        'ConfigMap/access-control-config',
        'Deployment/access-control-api',
        'Deployment/access-control-mailer',
        'HorizontalPodAutoscaler/access-control-api',
        'Job/access-control-migrate',
        'Namespace/access-control',
        'PodDisruptionBudget/access-control-api',
        'PodDisruptionBudget/access-control-mailer',
        'Service/access-control',
        'ServiceAccount/access-control',
      ].sort(),
    );
    for (const r of resources.filter((r) => r.kind !== 'Namespace')) expect(r.metadata.namespace).toBe('access-control');
    expect(byKind('Secret')).toEqual([]);
  });

  it('is valid against the Kubernetes schemas', async () => {
    for (const resource of resources) {
      await expect(validateAgainstSchema(resource)).resolves.toBeUndefined();
    }
  });

  it('sets only variables the service reads, secrets only through secretKeyRef', () => {
    const known = new Set<string>(CONFIG_VARIABLES);
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        const env = envOf(container);
        expect({ workload: workload.metadata.name, unknown: [...env.keys()].filter((name) => !known.has(name)) }).toEqual({
          workload: workload.metadata.name,
          unknown: [],
        });
        for (const variable of container.env ?? []) {
          if (/PASSWORD|PRIVATE_KEY|_KEY$|DATABASE_URL|SMTP_URL/.test(variable.name)) {
            expect(variable.valueFrom?.secretKeyRef?.name).toBe('access-control-secrets');
          }
        }
      }
    }
    // The ConfigMap itself is a valid configuration (with the secret parts filled in).
    expect(() => loadConfig({ ...configMap.data, DATABASE_URL: 'mysql://u:p@db:3306/access_control' })).not.toThrow();
  });

  it('gives every api replica the same keys from the Secret (none generated in its emptyDir), which README creates', () => {
    const api = containersOf(deployment('api'))[0];
    const fromSecret = (name: string) => api.env.find((variable: Obj) => variable.name === name)?.valueFrom?.secretKeyRef;
    // What the embedded default would generate under DATA_DIR: a pod's own, lost on restart.
    for (const name of LOCAL_KEY_VARIABLES) {
      expect({ name, ref: fromSecret(name) }).toEqual({ name, ref: { name: 'access-control-secrets', key: name } });
    }
    expect(fromSecret('AUDIT_SEAL_KEY')).toEqual({ name: 'access-control-secrets', key: 'AUDIT_SEAL_KEY', optional: true });
    // README's `kubectl create secret` makes every key a workload takes from the Secret.
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const command = /kubectl -n access-control create secret generic access-control-secrets((?:.*\\\n)*.*)/.exec(readme)?.[1] ?? '';
    const created = new Set([...command.matchAll(/--from-(?:literal|file)=([A-Z_]+)=/g)].map((m) => m[1]));
    const refs = workloads.flatMap((w) => containersOf(w).flatMap((c) => (c.env ?? []).map((v: Obj) => v.valueFrom?.secretKeyRef).filter(Boolean)));
    expect(refs.filter((ref: Obj) => !ref.optional && !created.has(ref.key)).map((ref: Obj) => ref.key)).toEqual([]);
    // An optional key it does not make (the signing key's rotation) is named in the paragraph after the command.
    const after = readme.slice(readme.indexOf(command), readme.indexOf('**The first admin.**'));
    const optional = [...new Set(refs.filter((ref: Obj) => ref.optional && !created.has(ref.key)).map((ref: Obj) => ref.key as string))];
    expect(optional.sort()).toEqual(['JWT_NEXT_PUBLIC_KEYS', 'JWT_PREVIOUS_PUBLIC_KEYS']);
    for (const key of optional) expect(after).toContain(`\`${key}\``);
  });

  it('runs every container non-root, read-only, without privilege escalation, with writable /tmp and DATA_DIR', () => {
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of containersOf(workload)) {
        expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
        expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
        expect(container.resources.limits.memory).toEqual(expect.any(String));
        const mounts = new Map<string, string>((container.volumeMounts ?? []).map((m: Obj) => [m.mountPath, m.name]));
        expect(mounts.has('/tmp')).toBe(true);
        const dataDir = envOf(container).get('DATA_DIR');
        if (dataDir) expect(mounts.has(dataDir)).toBe(true);
        for (const name of mounts.values()) expect(pod.volumes.find((v: Obj) => v.name === name)?.emptyDir).toBeDefined();
        expect(container.image).toBe('registry.example.com/platform/access-control:0.1.0');
      }
    }
  });

  it('selects each process with the image entrypoint: api, mailer, migrate', () => {
    expect(containersOf(deployment('api'))[0].args).toEqual(['api']);
    expect(containersOf(deployment('mailer'))[0].args).toEqual(['mailer']);
    expect(containersOf(byKind('Job')[0])[0].args).toEqual(['migrate']);
    expect(envOf(containersOf(deployment('api'))[0]).get('MIGRATE_ON_START')).toBe('false');
  });

  it('probes api routes that exist, on the port the api listens on, which the Service targets', async () => {
    const api = containersOf(deployment('api'))[0];
    const env = envOf(api);
    const port = Number(env.get('PORT') ?? 3000);
    const httpPort = api.ports.find((p: Obj) => p.name === 'http');
    expect(httpPort.containerPort).toBe(port);

    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-manifests-'));
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const container = buildContainer(config, createLogger('silent'));
    const app = await buildHttpApp(container);
    try {
      await app.ready();
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const get = api[probe]?.httpGet;
        expect({ probe, path: get?.path }).toEqual({ probe, path: expect.stringMatching(/^\/(healthz|readyz)$/) });
        expect([port, 'http']).toContain(get.port);
        expect(app.hasRoute({ method: 'GET', url: get.path })).toBe(true);
      }
      expect(api.readinessProbe.httpGet.path).toBe('/readyz');
      expect(api.livenessProbe.httpGet.path).toBe('/healthz');
      // Metrics are on the management port, apart from the public one the Service targets.
      expect(app.hasRoute({ method: 'GET', url: '/metrics' })).toBe(false);
      const metricsPort = Number(env.get('METRICS_PORT') ?? config.metricsPort);
      expect(metricsPort).not.toBe(port);
      expect(api.ports.find((p: Obj) => p.name === 'metrics').containerPort).toBe(metricsPort);
      expect(Number(deployment('api').spec.template.metadata.annotations['prometheus.io/port'])).toBe(metricsPort);
    } finally {
      await app.close();
      await container.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }

    const service = byKind('Service')[0];
    expect(service.spec.selector).toEqual(deployment('api').spec.selector.matchLabels);
    expect(service.spec.ports[0].targetPort).toBe('http');
    const hpa = byKind('HorizontalPodAutoscaler')[0];
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'access-control-api' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    for (const pdb of byKind('PodDisruptionBudget')) {
      const target = deployment(pdb.metadata.name.replace('access-control-', ''));
      expect(pdb.spec.selector.matchLabels).toEqual(target.spec.selector.matchLabels);
    }
  });

  it('probes the mailer on its metrics port, which MAILER_METRICS_PORT sets', () => {
    const mailer = containersOf(deployment('mailer'))[0];
    const port = Number(envOf(mailer).get('MAILER_METRICS_PORT') ?? MAILER_DEFAULT_METRICS_PORT);
    expect(mailer.ports.find((p: Obj) => p.name === 'metrics').containerPort).toBe(port);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect(MAILER_ROUTES).toContain(mailer[probe].httpGet.path);
      expect([port, 'metrics']).toContain(mailer[probe].httpGet.port);
    }
    // Alive while it waits for Kafka, ready only while it consumes.
    expect(mailer.livenessProbe.httpGet.path).toBe('/healthz');
    expect(mailer.readinessProbe.httpGet.path).toBe('/readyz');
    expect(Number(deployment('mailer').spec.template.metadata.annotations['prometheus.io/port'])).toBe(port);
  });

  it('creates the Kafka topics in the migrate Job, with the topic settings the api and the mailer see', () => {
    const job = containersOf(byKind('Job')[0])[0];
    const jobEnv = envOf(job);
    expect(jobEnv.get('KAFKA_BROKERS')).toBeTruthy();
    // Every ConfigMap key, whatever an operator adds to it (KAFKA_AUDIT_TOPIC, MAILER_DLQ_TOPIC, KAFKA_CLIENT_ID):
    // a key the Job did not get would create that topic under its default name.
    expect(job.envFrom).toEqual([{ configMapRef: { name: 'access-control-config' } }]);
    for (const [name, value] of Object.entries(configMap.data as Record<string, string>)) expect({ name, job: jobEnv.get(name) }).toEqual({ name, job: value });
    const settings = ['KAFKA_BROKERS', 'KAFKA_TOPIC', 'KAFKA_AUDIT_TOPIC', 'KAFKA_CLIENT_ID', 'KAFKA_TOPIC_PARTITIONS', 'KAFKA_REPLICATION_FACTOR', 'MAILER_DLQ_TOPIC'];
    for (const component of ['api', 'mailer']) {
      const env = envOf(containersOf(deployment(component))[0]);
      for (const name of settings) expect({ component, name, value: jobEnv.get(name) }).toEqual({ component, name, value: env.get(name) });
    }
    const config = loadConfig({ ...Object.fromEntries(jobEnv), DATABASE_URL: 'mysql://u:p@db:3306/access_control' });
    expect(config.kafka?.topicPartitions).toBeGreaterThan(1);
  });

  it('gives the shutdown sequence time to finish: preStop + the process grace fit in terminationGracePeriodSeconds', () => {
    const api = deployment('api');
    const container = containersOf(api)[0];
    const drain = durationSeconds(envOf(container).get('SHUTDOWN_DRAIN') ?? '0s');
    const preStop = Number(container.lifecycle.preStop.exec.command[1]);
    expect(container.lifecycle.preStop.exec.command[0]).toBe('sleep');
    // Readiness must notice the drain: at least one probe period fits in SHUTDOWN_DRAIN.
    expect(drain).toBeGreaterThanOrEqual(container.readinessProbe.periodSeconds * container.readinessProbe.failureThreshold);
    // The drain is part of the process's own 30 s; leave it room to close and flush.
    expect(drain).toBeLessThanOrEqual(PROCESS_GRACE_SECONDS / 2);
    expect(api.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStop + PROCESS_GRACE_SECONDS);
    expect(deployment('mailer').spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(PROCESS_GRACE_SECONDS);
    expect(api.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });
});
