// gateway: the /v1 REST API and the management API. Owns schema gateway (merchants, projects,
// API keys, audit log) and reaches every service over Connect.
export { build, type GatewayDeps } from './app.js';
export { bootstrapLocal, localProject } from './bootstrap.js';
export { consoleMailer, logMailer, mailWarnings, type MailMessage, type Mailer } from './dashboard/index.js';
export { DOCS_PATH, OPENAPI_PATH, deploymentUrl } from './http/docs.js';
export { DASHBOARD_PATH } from './dashboard/assets.js';
export { closeGateway } from './http/shutdown.js';
export { clientsOver, createGatewayClients, type GatewayClients, type GatewayTransports } from './clients.js';

export const PART = { name: 'gateway', schema: 'gateway', dir: 'gateway' } as const;
