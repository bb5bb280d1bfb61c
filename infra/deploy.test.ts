import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENV_NAMES, loadConfig } from '../apps/server/src/config.js';
import { Telemetry } from '../apps/server/src/telemetry/telemetry.js';

// None of these files runs here (no Docker engine, no cluster): what can be checked without running
// them is that they give the server settings it knows and accepts, that the Kubernetes copy of the
// load balancer's template is the one the 3-node integration test runs, and that the alerting rules
// watch metrics the server serves.
const read = (path: string) => readFileSync(join(import.meta.dirname, '..', path), 'utf8');

type Env = Record<string, string>;
interface K8sContainer {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } }[];
}
interface K8sObject {
  kind: string;
  metadata: { name: string };
  stringData?: Env;
  data?: Env;
  spec?: { template?: { spec: { containers: K8sContainer[] } } };
}
const k8s = parseAllDocuments(read('infra/k8s/rtcscope.yaml')).map((d) => d.toJS() as K8sObject);
const k8sObject = (kind: string, name: string) => k8s.find((o) => o.kind === kind && o.metadata.name === name)!;

/** A compose service's environment, with `${VAR:-default}` as compose fills it in when VAR is unset. */
function composeEnv(file: string, service: string): Env {
  const env = (parse(read(file)) as { services: Record<string, { environment: Env }> }).services[service]!.environment;
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{\w+:-([^}]*)\}/g, '$1')]));
}

/** A Deployment's container environment, with secrets taken from the manifest's own Secret. */
function k8sEnv(deployment: string): Env {
  const secret = k8sObject('Secret', 'rtcscope').stringData!;
  const container = k8sObject('Deployment', deployment).spec!.template!.spec.containers[0]!;
  return Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? secret[e.valueFrom!.secretKeyRef.key]!]));
}

/** `ENV A=1 B=2` lines of a Dockerfile; NODE_ENV is Node's own, not the server's. */
function dockerfileEnv(file: string): Env {
  const pairs = [...read(file).matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1]!.split(/\s+/).map((p) => p.split('=') as [string, string]));
  return Object.fromEntries(pairs.filter(([k]) => k !== 'NODE_ENV'));
}

/** An nginx config's directives: comments and blank lines left out, each line trimmed. */
const directives = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

describe('deployment files', () => {
  it.each([
    ['docker-compose.yml', () => composeEnv('docker-compose.yml', 'server')],
    ['infra/compose.cluster.yml', () => composeEnv('infra/compose.cluster.yml', 'rtcscope')],
    ['infra/k8s/rtcscope.yaml', () => k8sEnv('rtcscope')],
    ['infra/Dockerfile', () => dockerfileEnv('infra/Dockerfile')],
  ])('%s gives the server only settings it knows, with values it accepts', (_file, env) => {
    const settings = env();
    expect(Object.keys(settings).filter((k) => !ENV_NAMES.includes(k))).toEqual([]);
    expect(() => loadConfig(settings)).not.toThrow();
  });

  it('runs the cluster nodes as nodes of a deployment for many customers', () => {
    for (const env of [composeEnv('infra/compose.cluster.yml', 'rtcscope'), k8sEnv('rtcscope')]) {
      expect(loadConfig(env)).toMatchObject({ liveAdapter: 'postgres', localProject: false });
    }
  });

  it("gives Kubernetes' nginx the shipped template, plus what re-resolving the pods takes", () => {
    const template = k8sObject('ConfigMap', 'nginx-template').data!['default.conf.template']!;
    const extra = /^(resolver|zone) /;
    expect(directives(template).filter((l) => !extra.test(l))).toEqual(directives(read('infra/nginx/rtcscope.conf.template')));
    expect(directives(template).filter((l) => extra.test(l))).toEqual([
      'resolver kube-dns.kube-system.svc.cluster.local valid=10s;',
      'zone rtcscope 64k;',
      'zone rtcscope_calls 64k;',
    ]);
  });

  it('alerts only on metrics the server serves', () => {
    const telemetry = new Telemetry();
    type Watch = Parameters<Telemetry['watch']>;
    const namespace = { sockets: new Map() } as unknown as Watch[0]['ingest'];
    telemetry.watch({ ingest: namespace, live: namespace }, {} as Watch[1], async () => ({ slices: 0, overdueS: 0 }));
    // A histogram is served as its _bucket, _sum and _count series.
    const served = telemetry.registry.getMetricsAsArray().flatMap(({ name }) => [name, `${name}_bucket`, `${name}_sum`, `${name}_count`]);
    const { groups } = parse(read('infra/prometheus/rtcscope.rules.yml')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual([
      'RtcscopeIngestFailing',
      'RtcscopeAckSlow',
      'RtcscopeStorageJobStale',
      'RtcscopeCompactionBehind',
      'RtcscopeProjectOverLimit',
      'RtcscopeAlertRoundsSlow',
    ]);
    for (const { expr } of rules) {
      const named = expr.match(/rtcscope_\w+/g) ?? [];
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((n) => !served.includes(n))).toEqual([]);
    }
  });
});
