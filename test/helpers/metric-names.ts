// Which Prometheus series the code defines, and which ones a PromQL expression names: so the chart's
// alert rules and dashboard can be checked against the code, and a rule naming a series nobody
// exports (a typo, a renamed metric) fails a test instead of never firing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath } from '../../services/platform/paths.js';

/** A series the code defines through services/platform/metrics.ts: its name (a pattern where the name is built) and kind. */
export interface DefinedSeries { pattern: RegExp; source: string; kind: 'counter' | 'histogram' | 'gauge' }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'gen' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every `metrics.counter('name', …)`, `.histogram(…)` and `.gauge(…)` in the parts' sources. A name
 * built in a template literal (`svc_grpc_${side}_calls_total`) becomes a pattern with a word where
 * the placeholder is. A histogram also exports name_bucket, name_sum and name_count.
 */
export function definedSeries(): DefinedSeries[] {
  const found: DefinedSeries[] = [];
  for (const file of [...sourceFiles(projectPath('services')), ...sourceFiles(projectPath('gateway'))]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.(counter|histogram|gauge)\s*(?:<[^>(]*>)?\(\s*(['"`])([a-z_:][\w:${}]*)\2/g)) {
      const kind = m[1] as DefinedSeries['kind'];
      const name = m[3].split(/\$\{[^}]*\}/).map((part) => part.replace(/[^\w:]/g, '')).join('[a-z]+');
      const suffix = kind === 'histogram' ? '(_bucket|_sum|_count)?' : '';
      found.push({ pattern: new RegExp(`^${name}${suffix}$`), source: m[3], kind });
    }
  }
  return found;
}

const NOT_SERIES = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring',
  'group_left', 'group_right', 'inf', 'nan']);

/**
 * The series names a PromQL expression (or a Grafana variable query) selects: what is left once
 * strings, label matchers, ranges, Grafana variables, grouping clauses, functions and keywords are
 * taken out.
 */
export function seriesNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\blabel_values\(\s*([\w:]+)\s*,[^)]*\)/g, ' $1 ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)]
    .filter((m) => !m[2] && !NOT_SERIES.has(m[1].toLowerCase()))
    .map((m) => m[1]);
}
