// A browser's view of the dashboard's API for tests: it keeps the session cookie the gateway sets
// (svc_session, or the operator console's svc_operator), and sends the session's csrf_token on
// state-changing calls as the front end does.

import { linkIn, type Mailbox } from './mailbox.js';

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

/** Subjects of the dashboard's mails, to pick one from a mailbox. */
export const MAIL = { reset: /^Reset your password$/, invitation: /^You are invited/, confirm: /^Confirm your dashboard account$/ };

/** The link of the last mail to `to` whose subject matches, once one has arrived, as the recipient would click it. */
export async function mailedLink(mailbox: Mailbox, to: string, subject: RegExp = /./): Promise<string> {
  await mailbox.waitFor(to, subject);
  return linkIn(mailbox.to(to).filter((m) => subject.test(m.subject)).at(-1)!);
}

/**
 * Registers an owner as the dashboard does: POST /register (202), then the link mailed to `email`
 * confirmed from `browser`, which is signed in by it. Answers the confirmation (201, the session).
 */
export async function registerByMail(
  browser: DashboardBrowser, mailbox: Mailbox, body: { email: string; password: string; merchant_name: string },
  opts: { headers?: Record<string, string> } = {},
): Promise<DashboardAnswer> {
  const asked = await browser.call('POST', '/register', body, opts);
  if (asked.status !== 202) throw new Error(`register answered ${asked.status}: ${JSON.stringify(asked.body)}`);
  const link = await mailedLink(mailbox, body.email.trim().toLowerCase(), MAIL.confirm);
  return browser.call('POST', '/register/confirm', { token: tokenOf(link) }, opts);
}

export const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
