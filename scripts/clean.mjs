// A full build starts from an empty dist/, so no compiled copy of a deleted file (a test, say) survives.
import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
