import { verificationStatus, type GatewayStore, type SessionContext } from '../store/index.js';
import { can, type Permission } from './roles.js';
import { csrfTokenOf } from './tokens.js';

const PERMISSIONS: Permission[] = ['view', 'operate', 'develop', 'administer'];

/**
 * Where verification stands, for the live-mode checklist: approved (by an operator), else the latest
 * submission's status (pending, rejected), else not_submitted.
 */
export async function verificationStatusOf(store: GatewayStore, session: SessionContext): Promise<string> {
  if (session.merchant.verificationStatus === 'approved') return 'approved';
  return verificationStatus(session.merchant.verificationStatus, (await store.latestVerification(session.merchant.id))?.status);
}

/** GET /dashboard/api/session, and the answer of every call that signs in. */
export async function sessionView(store: GatewayStore, session: SessionContext, token: string) {
  return {
    user: { id: session.user.id, email: session.user.email },
    merchant: {
      id: session.merchant.id, name: session.merchant.name, verification_status: await verificationStatusOf(store, session),
    },
    project: { id: session.project.id, name: session.project.name },
    role: session.role,
    // What the role allows, so the page hides what would be refused (the API refuses it anyway).
    permissions: PERMISSIONS.filter((p) => can(session.role, p)),
    mode: session.mode,
    csrf_token: csrfTokenOf(token),
  };
}
