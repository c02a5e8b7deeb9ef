import { runServicePart } from '../shared/index.js';
import { PART, build } from './index.js';

await runServicePart(PART, [], build);
