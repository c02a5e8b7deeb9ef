import { runServicePart } from '../platform/standalone.js';
import { PART, build } from './index.js';

await runServicePart(PART, [], build);
