// The licensed providers this codebase ships: the one list the rest of the system learns providers
// from (credential checks, the CLI's options, the dashboard's connect form, notification routing,
// the routing_risk.providers rows, the settlement sync). Adding a provider is one folder
// (connectors/<code>/index.ts) and one line here (docs/connectors.md). Importing the list loads
// no provider SDK: each definition's connector() does, and only payments calls it. The demo
// providers are built in apart from this list (connectors/demo.ts): they need no credentials and
// no connect.
import { adyenProvider } from './adyen/index.js';
import { basisTheoryProvider } from './basis-theory/index.js';
import { checkoutProvider } from './checkout/index.js';
import { mollieProvider } from './mollie/index.js';
import { paypalProvider } from './paypal/index.js';
import type { ProviderDefinition } from './provider-definition.js';
import { stripeProvider } from './stripe/index.js';
import { stripeVaultProvider } from './stripe-vault/index.js';

export const PROVIDERS: readonly ProviderDefinition[] = [
  stripeProvider,
  adyenProvider,
  checkoutProvider,
  mollieProvider,
  paypalProvider,
  // A vault connection, connected like an account and never routed to.
  stripeVaultProvider,
  basisTheoryProvider,
];
