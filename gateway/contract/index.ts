// The /v1 contract at the gateway: the operation table, its schemas, and the OpenAPI document.
export { OPERATIONS, COMMON_ERRORS, type Operation, type OperationId } from './operations.js';
export { registerOperations, type Handler, type Handlers } from './register.js';
export { CURRENCIES } from './currencies.js';
export { buildOpenApi } from './openapi.js';
