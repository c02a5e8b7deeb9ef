// Provider accounts' credentials: kept encrypted under PROVIDER_SECRET_KEY (provider_credentials
// table), written and described through ProviderCredentialsService, and read only by connectors,
// through the CredentialSource of the store.
export { checkedValues, fieldNames } from './fields.js';
export { credentialCheck, providerCredentialRoutes } from './service.js';
export { createCredentialStore, PROVIDER_SECRET_KEY, type CredentialStore } from './store.js';
