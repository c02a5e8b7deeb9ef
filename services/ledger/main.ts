import { runServicePart } from '../platform/index.js';
import { PART, build } from './index.js';

await runServicePart(PART, [], build);
