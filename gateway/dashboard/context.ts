import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../services/platform/clock.js';
import type { Config } from '../../services/platform/config.js';
import type { GatewayClients } from '../clients.js';
import type { AddressRange } from '../../services/contract/ip-address.js';
import type { ManageDeps } from '../management/context.js';
import { userActor, type GatewayStore, type SessionContext } from '../store/index.js';
import type { AfterAnswer } from './after-answer.js';
import type { Mailer } from './mail-message.js';
import type { Permission } from './roles.js';

/** What every part of the dashboard's API works with. */
export interface DashboardDeps {
  store: GatewayStore;
  clients: GatewayClients;
  clock: Clock;
  config: Config;
  mailer: Mailer;
  /** Work public forms do after answering (mail), so the answer's timing reveals nothing. */
  later: AfterAnswer;
  /** TRUSTED_PROXIES compiled: whose X-Forwarded-For and X-Forwarded-Proto are believed. */
  trustedProxies: AddressRange[];
  /** The deployment's OPERATOR_TOKEN, which signs operators in to the console; without it the console is off. */
  operatorToken?: string;
}

/**
 * How a route of the dashboard's API is reached: without a session, with a merchant member's session
 * granting a permission, or with an operator's session (operator-session.ts), never one for the other.
 */
export type Access = { public: true } | { permission: Permission } | { operator: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declared by every route of the dashboard's API (scope.ts refuses one without). */
    dashboard?: Access;
  }
}

// Kept beside the request, as the /v1 identity is (auth/identity.ts): only the dashboard scope's hook sets it.
const sessions = new WeakMap<FastifyRequest, { context: SessionContext; token: string }>();

export function rememberSession(request: FastifyRequest, context: SessionContext, token: string): void {
  sessions.set(request, { context, token });
}

/** The signed-in session of a request to a route that requires one (a wiring mistake otherwise). */
export function sessionOf(request: FastifyRequest): SessionContext {
  const found = sessions.get(request);
  if (!found) throw new Error(`no session for ${request.method} ${request.url}`);
  return found.context;
}

export function sessionTokenOf(request: FastifyRequest): string | undefined {
  return sessions.get(request)?.token;
}

/** The management handlers' deps for a session: the same operations, audited as the user. */
export function manageDepsFor(deps: DashboardDeps, session: SessionContext): ManageDeps {
  return { store: deps.store, clock: deps.clock, clients: deps.clients, actor: userActor(session.user.id) };
}
