import { ConfigError, bool, int, str, type Env } from './parse.js';

// The dashboard's settings (served by the gateway): its per-client-address throttles and the
// mail it sends (password resets, invitations, registration links) with the sweep of what expired.

export interface DashboardSettings {
  /** Requests per address per minute to register, password reset and its confirm, invitation accept. */
  authThrottlePerMinute: number;
  /** Requests per address per minute to member sign-in (an office behind one address signs in together). */
  signInThrottlePerMinute: number;
  /** The SMTP server the dashboard mails through (SMTP_HOST …); unset: no mail transport. */
  smtp?: SmtpSettings;
  /** How often the gateway deletes expired mailed links and throttle rows past their window. */
  dashboardSweepMs: number;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (SMTPS, port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  /** A secret: never logged, never echoed in an error. */
  password?: string;
  /** The From of every mail: an address, or `Name <address>`. */
  from: string;
}

export function dashboardSettings(env: Env): DashboardSettings {
  return {
    // The dashboard's per-client-address throttles: what a person never reaches and a script does.
    authThrottlePerMinute: int(env, 'AUTH_THROTTLE_PER_MINUTE'),
    signInThrottlePerMinute: int(env, 'SIGN_IN_THROTTLE_PER_MINUTE'),
    smtp: smtpSettings(env),
    dashboardSweepMs: int(env, 'DASHBOARD_SWEEP_MS'),
  };
}

// Mailed links and team: SMTP_HOST turns the mail transport on; the rest needs it.
function smtpSettings(env: Env): SmtpSettings | undefined {
  const host = str(env, 'SMTP_HOST');
  const others = ['SMTP_PORT', 'SMTP_SECURE', 'SMTP_USER', 'SMTP_PASSWORD', 'MAIL_FROM'].filter((n) => str(env, n) !== undefined);
  if (host === undefined) {
    if (others.length > 0) throw new ConfigError(others[0]!, 'needs SMTP_HOST (the mail server) to be set too');
    return undefined;
  }
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) throw new ConfigError('SMTP_HOST', `must be a host name or address, got "${host}"`);
  const from = str(env, 'MAIL_FROM');
  if (from === undefined) throw new ConfigError('MAIL_FROM', 'is required with SMTP_HOST (the From address of dashboard mail)');
  if (!/^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError('MAIL_FROM', 'must be an address (no-reply@example.com) or "Name <no-reply@example.com>"');
  }
  const port = int(env, 'SMTP_PORT');
  const user = str(env, 'SMTP_USER');
  const password = env.SMTP_PASSWORD === undefined || env.SMTP_PASSWORD === '' ? undefined : env.SMTP_PASSWORD;
  if ((user === undefined) !== (password === undefined)) {
    // Names the one missing; SMTP_USER and SMTP_PASSWORD are set together or not at all.
    throw new ConfigError(user === undefined ? 'SMTP_USER' : 'SMTP_PASSWORD', `is required with ${user === undefined ? 'SMTP_PASSWORD' : 'SMTP_USER'}`);
  }
  return { host, port, secure: bool(env, 'SMTP_SECURE', port === 465), user, password, from };
}
