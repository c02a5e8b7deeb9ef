import { newId } from '../platform/ids.js';

// The contract names no prefix for transactions or settlements; these follow its style and the
// shared format (time first), so keyset pagination by id is pagination by time.
const withPrefix = (prefix: string) => (at: Date) => newId('evt', at).replace(/^evt_/, `${prefix}_`);

export const transactionId = withPrefix('txn');
export const settlementId = withPrefix('stl');
export const journalEntryId = withPrefix('jre');
