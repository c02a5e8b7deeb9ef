import type { VNode } from 'preact';
import { AcceptInvitationPage } from './pages/accept-invitation';
import { AllowListPage } from './pages/allow-list';
import { BalancesPage } from './pages/balances';
import { ApiKeysPage } from './pages/api-keys';
import { DeliveriesPage } from './pages/deliveries';
import { DisputePage } from './pages/dispute';
import { DisputesPage } from './pages/disputes';
import { DeliveryPage } from './pages/delivery';
import { HomePage } from './pages/home';
import { NotFoundPage } from './pages/not-found';
import { OwnerLinkPage } from './pages/owner-link';
import { PaymentPage } from './pages/payment';
import { PaymentsPage } from './pages/payments';
import { ProviderAccountsPage } from './pages/provider-accounts';
import { PayoutPage } from './pages/payout';
import { PayoutsPage } from './pages/payouts';
import { ConfirmRegistrationPage, RegisterPage } from './pages/register';
import { RequestLogPage } from './pages/request-log';
import { RequestLogEntryPage } from './pages/request-log-entry';
import { RoutingPage } from './pages/routing';
import { ResetConfirmPage, ResetRequestPage } from './pages/password-reset';
import { SandboxPage } from './pages/sandbox';
import { SettlementPage } from './pages/settlement';
import { SettlementsPage } from './pages/settlements';
import { SignInPage } from './pages/sign-in';
import { TeamPage } from './pages/team';
import { TransactionsPage } from './pages/transactions';
import { VerificationPage } from './pages/verification';
import { WebhookEndpointsPage } from './pages/webhook-endpoints';
import { match } from './router';

// Every page and its path under /dashboard.

type Render = (params: Record<string, string>, query: URLSearchParams) => VNode;

const PUBLIC: [string, Render][] = [
  ['/sign-in', (_p, q) => <SignInPage next={q.get('next') ?? undefined} />],
  ['/register', () => <RegisterPage />],
  ['/confirm', (_p, q) => <ConfirmRegistrationPage token={q.get('token') ?? ''} />],
  ['/reset', (_p, q) => (q.get('token') ? <ResetConfirmPage token={q.get('token')!} /> : <ResetRequestPage />)],
  ['/invitation', (_p, q) => <AcceptInvitationPage token={q.get('token') ?? ''} />],
  ['/owner', (_p, q) => <OwnerLinkPage token={q.get('token') ?? ''} />],
];

const SIGNED_IN: [string, Render][] = [
  ['/', () => <HomePage />],
  ['/payments', () => <PaymentsPage />],
  ['/payments/:id', (p) => <PaymentPage id={p.id} />],
  ['/disputes', () => <DisputesPage />],
  ['/disputes/:id', (p) => <DisputePage id={p.id} />],
  ['/payouts', () => <PayoutsPage />],
  ['/payouts/:id', (p) => <PayoutPage id={p.id} />],
  ['/balances', () => <BalancesPage />],
  ['/settlements', () => <SettlementsPage />],
  ['/settlements/:id', (p) => <SettlementPage id={p.id} />],
  ['/transactions', () => <TransactionsPage />],
  ['/developers/api-keys', () => <ApiKeysPage />],
  ['/developers/webhooks', () => <WebhookEndpointsPage />],
  ['/developers/deliveries', () => <DeliveriesPage />],
  ['/developers/deliveries/:id', (p) => <DeliveryPage id={p.id} />],
  ['/developers/request-log', () => <RequestLogPage />],
  ['/developers/request-log/:id', (p) => <RequestLogEntryPage id={p.id} />],
  ['/developers/sandbox', () => <SandboxPage />],
  ['/settings/allow-list', () => <AllowListPage />],
  ['/settings/provider-accounts', () => <ProviderAccountsPage />],
  ['/settings/routing', () => <RoutingPage />],
  ['/settings/team', () => <TeamPage />],
  ['/settings/verification', () => <VerificationPage />],
];

function find(table: [string, Render][], path: string, query: URLSearchParams): VNode | undefined {
  for (const [pattern, render] of table) {
    const params = match(pattern, path);
    if (params) return render(params, query);
  }
  return undefined;
}

export function publicPage(path: string, query: URLSearchParams): VNode | undefined {
  return find(PUBLIC, path, query);
}

export function signedInPage(path: string, query: URLSearchParams): VNode {
  return find(SIGNED_IN, path, query) ?? <NotFoundPage />;
}
