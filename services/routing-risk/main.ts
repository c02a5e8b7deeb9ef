import { PROVIDERS } from '../connectors/providers.js';
import { runServicePart } from '../platform/standalone.js';
import { PART, build } from './index.js';

// The providers' rows are written at start from the one list of definitions (provider-catalogue.ts).
await runServicePart(PART, [], (deps) => build({ ...deps, providers: PROVIDERS }));
