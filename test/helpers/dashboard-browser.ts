// A browser's view of the dashboard's API for tests: it keeps the session cookie the gateway sets
// (svc_session, or the operator console's svc_operator), and sends the session's csrf_token on
// state-changing calls as the front end does.

export interface DashboardAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export class DashboardBrowser {
  cookie: string | undefined;
  csrf: string | undefined;
  /** The Set-Cookie header of the last answer that set one. */
  lastSetCookie: string | undefined;

  constructor(readonly baseUrl: string, readonly cookieName = 'svc_session') {}

  async call(
    method: string, path: string, body?: unknown, opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<DashboardAnswer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookie) headers.cookie = `${this.cookieName}=${this.cookie}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
    const res = await fetch(`${this.baseUrl}/dashboard/api${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const set of res.headers.getSetCookie()) {
      if (!set.startsWith(`${this.cookieName}=`)) continue;
      this.lastSetCookie = set;
      const value = set.slice(this.cookieName.length + 1).split(';')[0];
      this.cookie = value === '' ? undefined : value;
    }
    const text = await res.text();
    const answer = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    if (answer.body?.csrf_token) this.csrf = answer.body.csrf_token;
    return answer;
  }
}

/** The link of the last mail to `to` that the log mailer wrote, as the recipient would click it. */
export function mailedLink(logLines: string[], to: string): string {
  const mails = logLines.map((l) => JSON.parse(l)).filter((l) => l.mail?.to === to);
  if (mails.length === 0) throw new Error(`no mail to ${to}`);
  const match = /https?:\/\/\S+/.exec(mails[mails.length - 1].mail.text);
  if (!match) throw new Error(`no link in the mail to ${to}`);
  return match[0];
}

export const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
