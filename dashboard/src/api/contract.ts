// The contract's enumerations, from their one home on the server side (services/contract/
// enums.ts imports nothing, so the bundler takes it as it is): a value added there reaches every
// filter and picker here.
export {
  DEMO_PROVIDERS, DISPUTE_STATUSES, LEARNING_STRATEGY_TYPES, ROUTING_STRATEGY_TYPES, EVENT_TYPES, PAYMENT_METHOD_TYPES, PAYMENT_STATUSES, PAYOUT_STATUSES, SETTLEMENT_STATUSES, TRANSACTION_STATUSES, TRANSACTION_TYPES, VAULTS,
} from '../../../services/contract/enums';
export { DECLINE_REASON_TEXT, isDeclineReason } from '../../../services/contract/decline-reasons';
