/**
 * Test support for the Grafana dashboards of deploy/grafana/dashboards (DESIGN §6): load them and
 * list every PromQL expression of every panel with the template variables substituted, so the
 * queries can be linted without Grafana and run against a real Prometheus.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DashboardTarget {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string } | string | null;
}

export interface DashboardPanel {
  id?: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: { type?: string; uid?: string } | string | null;
  targets?: DashboardTarget[];
  /** A row's panels (collapsed rows keep their panels here). */
  panels?: DashboardPanel[];
  fieldConfig?: { defaults?: { thresholds?: { steps?: Array<{ value: number | null }> } } };
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: DashboardPanel[];
  templating?: { list?: Array<{ name: string; type: string; query?: unknown; datasource?: unknown }> };
  annotations?: { list?: DashboardAnnotation[] };
}

/** An annotation query; Grafana's built-in one has no `expr`. */
export interface DashboardAnnotation {
  name: string;
  builtIn?: number;
  enable?: boolean;
  expr?: string;
  datasource?: { type?: string; uid?: string } | string | null;
  titleFormat?: string;
  tagKeys?: string;
}

export interface LoadedDashboard {
  /** File name, e.g. `pause-storms.json`. */
  file: string;
  dashboard: Dashboard;
}

export interface PanelQuery {
  panel: string;
  refId: string;
  /** The expression as written in the dashboard. */
  raw: string;
  /** With every variable substituted: plain PromQL. */
  expr: string;
  /** Series may legitimately be absent ("[optional]" in the panel's description). */
  optional: boolean;
}

/** Grafana's built-in interval variables, as a query of a few minutes would see them. */
export const BUILTINS: Readonly<Record<string, string>> = { __rate_interval: '1m', __interval: '15s', __range: '5m' };

/** The dashboards folder, relative to the repository root. */
export const DASHBOARDS_DIR = 'deploy/grafana/dashboards';

/** Every `*.json` of deploy/grafana/dashboards under `root`, parsed, sorted by file name. */
export function loadDashboards(root: string): LoadedDashboard[] {
  const dir = join(root, DASHBOARDS_DIR);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, dashboard: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Dashboard }));
}

/** Every panel, rows' nested panels included (rows themselves too). */
export function allPanels(dashboard: Dashboard): DashboardPanel[] {
  const out: DashboardPanel[] = [];
  const walk = (panels: DashboardPanel[] | undefined) => {
    for (const p of panels ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(dashboard.panels);
  return out;
}

/**
 * Replaces `$name`, `${name}`, `${name:format}` and `[[name]]`: built-ins by BUILTINS, dashboard
 * variables by `substitutions[name]` or else `.+` (the "All" value; the dashboards use variables only
 * inside `=~` matchers). `substitutions` may override built-ins too. An unknown variable throws.
 */
export function substitute(expr: string, variables: readonly string[], substitutions: Readonly<Record<string, string>> = {}): string {
  const value = (name: string): string => {
    const given = substitutions[name] ?? BUILTINS[name] ?? (variables.includes(name) ? '.+' : undefined);
    if (given === undefined) throw new Error(`unknown variable $${name} in ${JSON.stringify(expr)}`);
    return given;
  };
  return expr.replace(/\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (_m, a?: string, b?: string, c?: string) => value((a ?? b ?? c)!));
}

/** Every target expression of every panel of `dashboard`, and every annotation query, with its variables substituted. */
export function panelQueries(dashboard: Dashboard, substitutions: Readonly<Record<string, string>> = {}): PanelQuery[] {
  const variables = (dashboard.templating?.list ?? []).map((v) => v.name);
  return allPanels(dashboard).flatMap((panel) =>
    (panel.targets ?? [])
      .filter((t) => typeof t.expr === 'string' && t.expr.trim() !== '')
      .map((t) => ({
        panel: panel.title ?? `panel ${panel.id ?? '?'}`,
        refId: t.refId ?? '',
        raw: t.expr!,
        expr: substitute(t.expr!, variables, substitutions),
        optional: (panel.description ?? '').includes('[optional]'),
      })),
  ).concat(
    // An annotation marks events (a fault while it is active): none is a valid answer.
    (dashboard.annotations?.list ?? [])
      .filter((a) => typeof a.expr === 'string' && a.expr.trim() !== '')
      .map((a) => ({ panel: `annotation ${a.name}`, refId: '', raw: a.expr!, expr: substitute(a.expr!, variables, substitutions), optional: true })),
  );
}
