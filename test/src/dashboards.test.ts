/**
 * Lints the Grafana provisioning and dashboards of deploy/grafana (DESIGN §6) without Grafana or
 * Docker: stable uids, the provisioned datasource, `$__rate_interval` in every rate, no zero
 * padding, only exported metric names, and (when promtool is installed) valid PromQL.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { allPanels, loadDashboards, panelQueries, substitute, type Dashboard, type DashboardPanel } from './dashboards.js';

/** This file runs as test/dist/dashboards.test.js: the repository root is two levels up. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

const DATASOURCE_YAML = 'deploy/grafana/provisioning/datasources/prometheus.yaml';
const PROVIDER_YAML = 'deploy/grafana/provisioning/dashboards/rocelab.yaml';
const METRIC_SOURCES = ['packages/telemetry/src/node-metrics.ts', 'services/controller/src/metrics.ts'];
const EXPECTED = [
  { file: 'dcqcn.json', uid: 'rocelab-dcqcn', title: 'DCQCN' },
  { file: 'emulator.json', uid: 'rocelab-emulator', title: 'Emulator' },
  { file: 'pause-storms.json', uid: 'rocelab-pause-storms', title: 'Pause storms' },
];
/** The vendor profile's ECN thresholds (packages/switch/src/defaults.ts ECN_VENDOR), drawn on queue panels. */
const KMIN = 104_000;
const KMAX = 312_000;

/** Values of `key: value` lines of a YAML file (enough for the flat provisioning files). */
function yamlValues(text: string, key: string): string[] {
  const re = new RegExp(`^\\s*(?:-\\s+)?${key}:\\s*(.*?)\\s*$`, 'gm');
  return [...text.matchAll(re)].map((m) => m[1]!.replace(/^(['"])(.*)\1$/, '$2'));
}

const DASHBOARDS = loadDashboards(ROOT);
const DATASOURCE_UID = yamlValues(read(DATASOURCE_YAML), 'uid')[0];
const isRow = (p: DashboardPanel): boolean => p.type === 'row';
const dsUid = (ds: unknown): unknown => (ds !== null && typeof ds === 'object' ? (ds as { uid?: unknown }).uid : ds);
const every = (f: (d: Dashboard, file: string) => void) => DASHBOARDS.forEach(({ dashboard, file }) => f(dashboard, file));

/** The argument text of every call `name(...)` in `expr` (balanced parentheses). */
function callArguments(expr: string, names: string[]): Array<{ name: string; arg: string }> {
  const out: Array<{ name: string; arg: string }> = [];
  for (const m of expr.matchAll(new RegExp(`\\b(${names.join('|')})\\s*\\(`, 'g'))) {
    let depth = 1;
    let i = m.index + m[0].length;
    const start = i;
    for (; i < expr.length && depth > 0; i++) depth += expr[i] === '(' ? 1 : expr[i] === ')' ? -1 : 0;
    out.push({ name: m[1]!, arg: expr.slice(start, i - 1) });
  }
  return out;
}

test('provisioning: a default Prometheus datasource with a fixed uid and timeInterval, and a provider for the dashboards folder', () => {
  const ds = read(DATASOURCE_YAML);
  assert.ok(DATASOURCE_UID !== undefined && /^[A-Za-z0-9_-]{1,40}$/.test(DATASOURCE_UID), `${DATASOURCE_YAML}: a fixed uid`);
  assert.deepEqual(yamlValues(ds, 'type'), ['prometheus']);
  assert.deepEqual(yamlValues(ds, 'url'), ['http://prometheus:9090']);
  assert.deepEqual(yamlValues(ds, 'timeInterval'), ['5s'], 'timeInterval = the scrape interval');
  assert.deepEqual(yamlValues(ds, 'isDefault'), ['true']);
  const provider = read(PROVIDER_YAML);
  assert.deepEqual(yamlValues(provider, 'type'), ['file']);
  assert.deepEqual(yamlValues(provider, 'path'), ['/var/lib/grafana/dashboards'], 'the folder deploy/grafana/dashboards is mounted at');
});

test('dashboards: the three expected files, valid JSON, unique stable uids, titles, schemaVersion, refresh', () => {
  assert.deepEqual(
    DASHBOARDS.map(({ file, dashboard }) => ({ file, uid: dashboard.uid, title: dashboard.title })),
    EXPECTED,
  );
  assert.equal(new Set(DASHBOARDS.map((d) => d.dashboard.uid)).size, DASHBOARDS.length, 'uids are unique');
  every((d, file) => {
    assert.match(d.uid, /^[a-z0-9-]{1,40}$/, `${file}: uid`);
    assert.equal(typeof d.schemaVersion, 'number', `${file}: schemaVersion`);
    assert.ok(d.schemaVersion >= 39, `${file}: schemaVersion ≥ 39`);
    assert.equal((d as unknown as { id: unknown }).id ?? null, null, `${file}: no database id (provisioned by uid)`);
    assert.equal((d as unknown as { refresh: unknown }).refresh, '5s', `${file}: refresh`);
  });
});

test('dashboards: every panel queries the provisioned datasource and every target has an expr', () => {
  every((d, file) => {
    const panels = allPanels(d);
    const ids = panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, `${file}: unique panel ids`);
    for (const p of panels.filter((q) => !isRow(q))) {
      const where = `${file}: panel ${JSON.stringify(p.title)}`;
      assert.ok(typeof p.title === 'string' && p.title !== '', `${where}: a title`);
      assert.equal(dsUid(p.datasource), DATASOURCE_UID, `${where}: datasource uid`);
      assert.ok((p.targets ?? []).length > 0, `${where}: at least one target`);
      for (const t of p.targets!) {
        assert.ok(typeof t.expr === 'string' && t.expr.trim() !== '', `${where} ${t.refId}: expr`);
        if (t.datasource !== undefined) assert.equal(dsUid(t.datasource), DATASOURCE_UID, `${where} ${t.refId}: datasource uid`);
      }
    }
    for (const p of panels.filter(isRow)) assert.equal((p.targets ?? []).length, 0, `${file}: row ${p.title} has no queries`);
    for (const v of d.templating?.list ?? []) {
      if (v.type === 'query') assert.equal(dsUid(v.datasource), DATASOURCE_UID, `${file}: variable ${v.name} datasource uid`);
    }
  });
});

test('queries: rates use $__rate_interval, no hard-coded windows, no `or vector(0)`, variables only in regex matchers', () => {
  every((d, file) => {
    assert.ok(!/\bor\s+vector\s*\(/i.test(JSON.stringify(d)), `${file}: no "or vector(...)" padding`);
    for (const q of panelQueries(d)) {
      const where = `${file}: ${q.panel} ${q.refId}: ${q.raw}`;
      for (const { name, arg } of callArguments(q.raw, ['rate', 'irate', 'increase'])) {
        const allowed = name === 'irate' ? /\[\$__(rate_)?interval\]\s*$/ : /\[\$__rate_interval\]\s*$/;
        assert.match(arg, allowed, `${where}: ${name}() over $__rate_interval`);
      }
      for (const [, window] of q.raw.matchAll(/\[([^\]]*)\]/g)) assert.match(window!, /^\$__(rate_)?interval$/, `${where}: window [${window}]`);
      const outsideRegex = q.raw.replace(/[=!]~"[^"]*"/g, '""').replace(/\[\$__(rate_)?interval\]/g, '[]');
      assert.doesNotMatch(outsideRegex, /\$|\[\[/, `${where}: variables only inside =~ matchers (so "All" = .+ works)`);
    }
  });
});

test('queries: every rocelab_ metric is one the nodes or the controller export', () => {
  const source = METRIC_SOURCES.map(read).join('\n');
  const exported = (name: string) => source.includes(`'${name}'`);
  every((d, file) => {
    const text = [...panelQueries(d).map((q) => q.raw), ...(d.templating?.list ?? []).map((v) => JSON.stringify(v.query ?? ''))].join('\n');
    const names = new Set(text.match(/rocelab_[a-z_]+/g) ?? []);
    assert.ok(names.size > 0, `${file}: uses rocelab metrics`);
    for (const name of names) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      assert.ok(exported(name) || exported(base), `${file}: ${name} is not exported by ${METRIC_SOURCES.join(' or ')}`);
    }
  });
});

test('panels: queue-depth panels draw Kmin/Kmax; per-QP panels are optional, in a collapsed row, and nothing else is', () => {
  let queuePanels = 0;
  every((d, file) => {
    for (const p of allPanels(d).filter((q) => !isRow(q))) {
      const exprs = (p.targets ?? []).map((t) => t.expr ?? '').join('\n');
      const optional = (p.description ?? '').includes('[optional]');
      if (exprs.includes('rocelab_queue_depth_bytes')) {
        queuePanels++;
        const steps = (p.fieldConfig?.defaults?.thresholds?.steps ?? []).map((s) => s.value);
        assert.ok(steps.includes(KMIN) && steps.includes(KMAX), `${file}: ${p.title}: Kmin/Kmax threshold lines`);
      }
      const perQp = /rocelab_(qp_|dcqcn_alpha)/.test(exprs);
      assert.equal(optional, perQp, `${file}: ${p.title}: "[optional]" exactly on the per-QP (qpMetrics) panels`);
    }
    for (const row of d.panels.filter(isRow)) {
      const nested = row.panels ?? [];
      if (nested.some((p) => (p.description ?? '').includes('[optional]'))) {
        assert.equal((row as { collapsed?: boolean }).collapsed, true, `${file}: row ${row.title} is collapsed`);
        assert.match(row.title ?? '', /qpMetrics: true/, `${file}: row ${row.title} says how to enable it`);
      }
    }
    for (const p of d.panels) {
      if (!isRow(p)) assert.ok(!(p.description ?? '').includes('[optional]'), `${file}: optional panel ${p.title} outside a row`);
    }
  });
  assert.ok(queuePanels >= 2, 'queue depth on Pause storms and DCQCN');
});

test('annotations: Pause storms and DCQCN mark active faults (rocelab_fault_active) by fault and target', () => {
  const marked = DASHBOARDS.filter(({ dashboard }) => (dashboard.annotations?.list ?? []).some((a) => a.expr?.includes('rocelab_fault_active')));
  assert.deepEqual(marked.map((d) => d.file), ['dcqcn.json', 'pause-storms.json']);
  for (const { file, dashboard } of marked) {
    const a = dashboard.annotations!.list!.find((x) => x.expr?.includes('rocelab_fault_active'))!;
    assert.equal(a.enable, true, `${file}: on by default`);
    assert.equal(dsUid(a.datasource), DATASOURCE_UID, `${file}: the provisioned datasource`);
    assert.match(a.expr!, /^max by \(fault, target\) \(rocelab_fault_active\) > 0$/, `${file}: one series per fault, only while active`);
    assert.equal(a.titleFormat, '{{fault}} on {{target}}');
    assert.equal(a.tagKeys, 'fault,target');
  }
});

test('panelQueries: nested rows, optional flags, substitutions; unknown variables throw', () => {
  const d: Dashboard = {
    uid: 'x',
    title: 'x',
    schemaVersion: 39,
    templating: { list: [{ name: 'node', type: 'query' }, { name: 'host', type: 'query' }] },
    panels: [
      { type: 'timeseries', title: 'a', targets: [{ refId: 'A', expr: 'rate(m{node=~"$node"}[$__rate_interval])' }, { refId: 'B', expr: '' }] },
      { type: 'row', title: 'r', panels: [{ type: 'timeseries', title: 'b', description: '[optional] q', targets: [{ refId: 'A', expr: 'irate(m{node=~"${host}"}[$__interval])' }] }] },
    ],
  };
  assert.deepEqual(
    panelQueries(d, { host: 'h1' }).map(({ panel, refId, expr, optional }) => ({ panel, refId, expr, optional })),
    [
      { panel: 'a', refId: 'A', expr: 'rate(m{node=~".+"}[1m])', optional: false },
      { panel: 'b', refId: 'A', expr: 'irate(m{node=~"h1"}[15s])', optional: true },
    ],
  );
  assert.equal(substitute('m{a=~"[[node]]",b=~"${node:regex}"}[$__rate_interval]', ['node'], { __rate_interval: '2m' }), 'm{a=~".+",b=~".+"}[2m]');
  assert.throws(() => substitute('m{a=~"$nope"}', ['node']), /unknown variable \$nope/);
  for (const { dashboard } of DASHBOARDS) for (const q of panelQueries(dashboard)) assert.doesNotMatch(q.expr, /\$/, `${q.panel}: ${q.expr}`);
});

test('queries: every substituted query is valid PromQL (promtool check rules)', (t) => {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    t.skip('promtool is not on PATH');
    return;
  }
  const queries = DASHBOARDS.flatMap(({ file, dashboard }) => panelQueries(dashboard).map((q) => ({ ...q, file })));
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-dashboards-'));
  try {
    const file = join(dir, 'rules.yml');
    // JSON is YAML: one recording rule per query.
    const rules = { groups: [{ name: 'g', rules: queries.map((q, n) => ({ record: `r_${n}`, expr: q.expr })) }] };
    writeFileSync(file, JSON.stringify(rules, null, 2));
    const run = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    const named = (run.stdout + run.stderr).replace(/r_(\d+)/g, (m, n: string) => {
      const q = queries[Number(n)];
      return q === undefined ? m : `${m} (${q.file}: ${q.panel} ${q.refId})`;
    });
    assert.equal(run.status, 0, `promtool check rules failed:\n${named}`);
    assert.match(run.stdout, new RegExp(`SUCCESS: ${queries.length} rules found`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
