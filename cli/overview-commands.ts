import { id, limitProblem, pageLines, required, type Command, type Values } from './command.js';

// `svc status`, `svc merchant list`, `svc project list`: what exists on the deployment, so a new
// developer finds their merchant, project and keys without remembering ids.

const page = (values: Values) => {
  const params = new URLSearchParams();
  if (values.limit !== undefined) params.set('limit', values.limit.trim());
  if (values.cursor !== undefined) params.set('cursor', values.cursor);
  return params.size > 0 ? `?${params}` : '';
};

/** The API's verification status as the dashboard shows it: not_submitted reads "not submitted". */
export const verificationWords = (m: { verification_status?: unknown }) => `verification: ${String(m.verification_status).replace(/_/g, ' ')}`;
const merchantLine = (m: any) => `${m.id}  ${m.name}  (${verificationWords(m)})  created ${m.created_at}`;
const projectLine = (p: any) => `${p.id}  ${p.name}  (merchant ${p.merchant_id})  created ${p.created_at}`;

/** One mode of a project: its active keys, or what to run to get one. */
function modeLine(mode: string, view: any, project: any, merchant: any): string {
  const label = `    ${mode.padEnd(4)}  `;
  if (view.keys.length > 0) {
    return label + view.keys.map((k: any) => `${k.id} ${k.prefix}… ${k.name}`).join(', ');
  }
  if (!view.available) return `${label}no keys; live keys need verification: svc merchant verify ${merchant.id}`;
  return `${label}no keys: svc key create --project ${project.id} --mode ${mode} --name NAME`;
}

function statusLines(body: any): string[] {
  const lines = [`svc at ${body.base_url}`];
  if (body.merchants.length === 0) return [...lines, 'no merchants yet: svc merchant create --name NAME'];
  for (const m of body.merchants) {
    lines.push(`merchant ${m.id}  ${m.name}  (${verificationWords(m)})`);
    for (const p of m.projects) {
      lines.push(`  project ${p.id}  ${p.name}`);
      for (const [mode, view] of Object.entries(p.modes)) lines.push(modeLine(mode, view, p, m));
    }
  }
  if (body.has_more) lines.push(`more merchants than shown: svc merchant list`);
  return lines;
}

export const OVERVIEW_COMMANDS: Command[] = [
  {
    words: ['status'],
    summary: 'the deployment\'s base URL, its merchants, their projects and, per mode, the active keys',
    synopsis: '',
    options: [],
    positionals: [],
    check: () => undefined,
    // The API does not know the address it was reached at through proxies; the CLI does.
    call: async (api) => ({ base_url: api.baseUrl, ...(await api.request('GET', '/status')) }),
    human: statusLines,
  },
  {
    words: ['merchant', 'list'],
    summary: 'list the merchants, oldest first',
    synopsis: '[--limit N] [--cursor C]',
    options: ['limit', 'cursor'],
    positionals: [],
    check: limitProblem,
    call: (api, values) => api.request('GET', `/merchants${page(values)}`),
    human: (body) => pageLines(body, merchantLine, 'no merchants yet: svc merchant create --name NAME'),
  },
  {
    words: ['project', 'list'],
    summary: 'list a merchant\'s projects, oldest first',
    synopsis: '--merchant MER_ID [--limit N] [--cursor C]',
    options: ['merchant', 'limit', 'cursor'],
    positionals: [],
    check: (values) => required(values, 'merchant') ?? limitProblem(values),
    call: (api, values) => api.request('GET', `/merchants/${id(values.merchant!)}/projects${page(values)}`),
    human: (body) => pageLines(body, projectLine, 'no projects'),
  },
];
