import { newId } from '../platform/ids.js';

// The contract names no prefix for endpoints or attempts; these follow its style (`whd_`, `whsec_`)
// and the shared format, so they sort by creation time too.
export const endpointId = (at: Date) => newId('whd', at).replace(/^whd_/, 'we_');
export const attemptId = (at: Date) => newId('whd', at).replace(/^whd_/, 'wha_');
