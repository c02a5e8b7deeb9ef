import { loadConfig, requireForPart } from '../platform/config.js';
import { exitOnStartupError, runServicePart } from '../platform/standalone.js';
import { PART, build } from './index.js';

// On its own the part keeps merchants' signing secrets in a database of its own: never unencrypted
// (PartNeeds.webhookSecretKey), named with every other missing variable in one message.
try {
  requireForPart(loadConfig(), PART.name, [], { nats: true, webhookSecretKey: true });
} catch (err) {
  exitOnStartupError(err);
}
await runServicePart(PART, [], build);
