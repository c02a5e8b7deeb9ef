// The management API's operations: what the contract says is done "in the dashboard", for the
// `svc` CLI. Routes and validation are made from this table, as /v1's are from
// services/contract/operations.ts.
import {
  AllowlistBody, DeadLetterListQuery, DemoBehaviourBody, DemoBehaviourClearQuery, RecoverBody, DeliveryListQuery, EndpointBody, EndpointUpdateBody, KeyBody, MerchantBody, RejectBody,
  modeQuery, optionalModeQuery, PageQuery, partQuery, ProviderAccountBody, RateLimitBody, RepublishBody, RoutingRuleBody, RoutingRuleUpdateBody, SyncBody,
} from './schemas.js';

export type ManageOperationId =
  | 'getStatus' | 'listMerchants' | 'listProjects'
  | 'createMerchant' | 'verifyMerchant' | 'rejectMerchant' | 'createOwnerLink' | 'createKey' | 'listKeys' | 'revokeKey' | 'setKeyRateLimit'
  | 'getAllowlist' | 'setAllowlist' | 'createRoutingRule' | 'listRoutingRules' | 'deleteRoutingRule'
  | 'updateRoutingRule' | 'getRoutingRuleReport'
  | 'createWebhookEndpoint' | 'listWebhookEndpoints' | 'getWebhookEndpoint' | 'updateWebhookEndpoint'
  | 'disableWebhookEndpoint' | 'enableWebhookEndpoint' | 'rotateWebhookSecret' | 'recoverWebhookEndpoint'
  | 'listWebhookDeliveries' | 'getWebhookDelivery' | 'resendWebhookDelivery'
  | 'connectProviderAccount' | 'listProviderAccounts' | 'getProviderAccount' | 'disableProviderAccount'
  | 'enableProviderAccount' | 'testProviderAccount' | 'importSettlementReport' | 'syncSettlements'
  | 'listDeadLetters' | 'republishDeadLetter' | 'republishOutbox'
  | 'getDemoBehaviour' | 'setDemoBehaviour' | 'clearDemoBehaviour';

export interface ManageOperation {
  id: ManageOperationId;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify style, under the scope's prefix: `/manage/v1/keys/:id/revoke`. */
  path: string;
  /** The status of a success. */
  status: 200 | 201;
  body?: object;
  query?: object;
}

const op = (o: ManageOperation) => o;
const endpoint = '/manage/v1/projects/:id/webhook-endpoints/:endpoint';
const delivery = '/manage/v1/projects/:id/webhook-deliveries/:delivery';
const providerAccount = '/manage/v1/provider-accounts/:id';
const routingRule = '/manage/v1/projects/:id/routing-rules/:rule';

export const MANAGE_OPERATIONS: ManageOperation[] = [
  // What exists: merchants, their projects and keys per mode.
  op({ id: 'getStatus', method: 'GET', path: '/manage/v1/status', status: 200 }),
  op({ id: 'listMerchants', method: 'GET', path: '/manage/v1/merchants', status: 200, query: PageQuery }),
  op({ id: 'listProjects', method: 'GET', path: '/manage/v1/merchants/:id/projects', status: 200, query: PageQuery }),
  // Merchants and API keys (the store audits each change in the same transaction).
  op({ id: 'createMerchant', method: 'POST', path: '/manage/v1/merchants', status: 201, body: MerchantBody }),
  op({ id: 'verifyMerchant', method: 'POST', path: '/manage/v1/merchants/:id/verify', status: 200 }),
  // Rejects the merchant's pending verification submission with the reason the merchant reads.
  op({ id: 'rejectMerchant', method: 'POST', path: '/manage/v1/merchants/:id/reject', status: 200, body: RejectBody }),
  // A one-time link that signs its opener in to the dashboard as an owner of the merchant (printed, never mailed).
  op({ id: 'createOwnerLink', method: 'POST', path: '/manage/v1/merchants/:id/owner-links', status: 201 }),
  op({ id: 'createKey', method: 'POST', path: '/manage/v1/projects/:id/keys', status: 201, body: KeyBody }),
  op({ id: 'listKeys', method: 'GET', path: '/manage/v1/projects/:id/keys', status: 200 }),
  op({ id: 'revokeKey', method: 'POST', path: '/manage/v1/keys/:id/revoke', status: 200 }),
  op({ id: 'setKeyRateLimit', method: 'PUT', path: '/manage/v1/keys/:id/rate-limit', status: 200, body: RateLimitBody }),
  // Project settings.
  op({ id: 'getAllowlist', method: 'GET', path: '/manage/v1/projects/:id/allowlist', status: 200 }),
  op({ id: 'setAllowlist', method: 'PUT', path: '/manage/v1/projects/:id/allowlist', status: 200, body: AllowlistBody }),
  // Routing rules, kept by routing-risk.
  op({ id: 'createRoutingRule', method: 'POST', path: '/manage/v1/projects/:id/routing-rules', status: 201,
    body: RoutingRuleBody }),
  op({ id: 'listRoutingRules', method: 'GET', path: '/manage/v1/projects/:id/routing-rules', status: 200, query: modeQuery }),
  op({ id: 'deleteRoutingRule', method: 'DELETE', path: routingRule, status: 200, query: modeQuery }),
  op({ id: 'updateRoutingRule', method: 'PATCH', path: routingRule, status: 200, query: modeQuery, body: RoutingRuleUpdateBody }),
  // Acceptance per A/B arm since the rule's experiment began.
  op({ id: 'getRoutingRuleReport', method: 'GET', path: `${routingRule}/report`, status: 200, query: modeQuery }),
  // Webhook endpoints and deliveries, kept by the webhooks part.
  op({ id: 'createWebhookEndpoint', method: 'POST', path: '/manage/v1/projects/:id/webhook-endpoints', status: 201,
    body: EndpointBody }),
  op({ id: 'listWebhookEndpoints', method: 'GET', path: '/manage/v1/projects/:id/webhook-endpoints', status: 200,
    query: modeQuery }),
  op({ id: 'getWebhookEndpoint', method: 'GET', path: endpoint, status: 200, query: modeQuery }),
  op({ id: 'updateWebhookEndpoint', method: 'POST', path: endpoint, status: 200, query: modeQuery, body: EndpointUpdateBody }),
  op({ id: 'disableWebhookEndpoint', method: 'POST', path: `${endpoint}/disable`, status: 200, query: modeQuery }),
  op({ id: 'enableWebhookEndpoint', method: 'POST', path: `${endpoint}/enable`, status: 200, query: modeQuery }),
  op({ id: 'rotateWebhookSecret', method: 'POST', path: `${endpoint}/rotate-secret`, status: 200, query: modeQuery }),
  op({ id: 'recoverWebhookEndpoint', method: 'POST', path: `${endpoint}/recover`, status: 200, query: modeQuery,
    body: RecoverBody }),
  op({ id: 'listWebhookDeliveries', method: 'GET', path: '/manage/v1/projects/:id/webhook-deliveries', status: 200,
    query: DeliveryListQuery }),
  op({ id: 'getWebhookDelivery', method: 'GET', path: delivery, status: 200, query: modeQuery }),
  op({ id: 'resendWebhookDelivery', method: 'POST', path: `${delivery}/resend`, status: 200, query: modeQuery }),
  // Accounts at licensed providers, kept by routing-risk, with their credentials kept by payments.
  op({ id: 'connectProviderAccount', method: 'POST', path: '/manage/v1/projects/:id/provider-accounts', status: 201,
    body: ProviderAccountBody }),
  op({ id: 'listProviderAccounts', method: 'GET', path: '/manage/v1/projects/:id/provider-accounts', status: 200,
    query: optionalModeQuery }),
  op({ id: 'getProviderAccount', method: 'GET', path: providerAccount, status: 200 }),
  op({ id: 'disableProviderAccount', method: 'POST', path: `${providerAccount}/disable`, status: 200 }),
  op({ id: 'enableProviderAccount', method: 'POST', path: `${providerAccount}/enable`, status: 200 }),
  op({ id: 'testProviderAccount', method: 'POST', path: `${providerAccount}/test`, status: 200 }),
  // Their settlements into the ledger: Adyen's report uploaded as text/csv, Stripe's payouts from its API.
  op({ id: 'importSettlementReport', method: 'POST', path: `${providerAccount}/settlement-reports`, status: 200 }),
  op({ id: 'syncSettlements', method: 'POST', path: `${providerAccount}/settlement-sync`, status: 200, body: SyncBody }),
  // The sandbox's demo providers' behaviour per segment, test mode only, kept by payments.
  op({ id: 'getDemoBehaviour', method: 'GET', path: '/manage/v1/projects/:id/demo-behaviour', status: 200, query: modeQuery }),
  op({ id: 'setDemoBehaviour', method: 'PUT', path: '/manage/v1/projects/:id/demo-behaviour', status: 200,
    body: DemoBehaviourBody }),
  op({ id: 'clearDemoBehaviour', method: 'DELETE', path: '/manage/v1/projects/:id/demo-behaviour', status: 200,
    query: DemoBehaviourClearQuery }),
  // Parked outbox events, kept by each producing part.
  op({ id: 'listDeadLetters', method: 'GET', path: '/manage/v1/dead-letters', status: 200, query: DeadLetterListQuery }),
  op({ id: 'republishDeadLetter', method: 'POST', path: '/manage/v1/dead-letters/:event_id/republish', status: 200,
    query: partQuery }),
  op({ id: 'republishOutbox', method: 'POST', path: '/manage/v1/outbox/republish', status: 200, query: partQuery,
    body: RepublishBody }),
];
