import { exitOnStartupError, loadConfig, requireWebhookSecretKey, runServicePart } from '../shared/index.js';
import { PART, build } from './index.js';

// On its own the part holds merchants' signing secrets in a database of its own: never unencrypted.
try {
  requireWebhookSecretKey(loadConfig());
} catch (err) {
  exitOnStartupError(err);
}
await runServicePart(PART, [], build);
