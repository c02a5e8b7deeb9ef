import { cardFactsOf, type CardFacts } from '../../connectors/index.js';
import type { PaymentMethodRecord } from './store.js';

/**
 * What a stored card method says about its card, for routing's segments: the network from its
 * `display.brand` and the BIN range from its `display.bin`, read as a provider's answer is read
 * (connectors/card-facts.ts), so a BIN longer than eight digits gives nothing rather than a cut
 * number. Undefined for other methods and when the display says neither.
 */
export function storedCardFacts(pm: PaymentMethodRecord): CardFacts | undefined {
  if (pm.type !== 'card') return undefined;
  return cardFactsOf(pm.display.brand, pm.display.bin);
}
