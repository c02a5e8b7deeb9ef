// Customer actions (asynchronous rails): a provider answers requires_action and the customer
// finishes the payment on a page. required.ts: whether an answer is actionable and the action it
// opens (pure); customer-actions.ts: the customer's approval, decline or expiry as a payment
// transition (also when the provider's notification reports it), and the page's view and completion;
// store.ts: the customer_actions table.
export {
  completeCustomerAction, createCustomerActions, CUSTOMER_OUTCOMES, type CustomerActions, type CustomerOutcome,
  providerCompletesCustomerAction,
} from './customer-actions.js';
export { actionable, openCustomerAction, SANDBOX_PAGE_PATH, type CustomerActionSettings } from './required.js';
export { customerActionQueries } from './store.js';
