// Payouts through licensed providers' accounts for the payouts part (ProviderPayoutsService):
// payments holds the credentials, so the connector's payout and payoutStatus are called here.
export { answerOf, providerPayoutRoutes, type ProviderPayoutDeps } from './service.js';
