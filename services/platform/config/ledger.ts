import { int, type Env } from './parse.js';

// The ledger's settings: the demo providers' settlement cycle and the movement writer's wait.

export interface LedgerSettings {
  /** Demo providers settle a movement once it is this old (T+1 by default). */
  settlementCutoffMs: number;
  /** How often the ledger runs a cycle of the demo providers' settlement reports. */
  settlementSweepMs: number;
  /** How long the movement writer waits for more money events before writing a lone one. */
  ledgerRecordWaitMs: number;
}

export function ledgerSettings(env: Env): LedgerSettings {
  return {
    settlementCutoffMs: int(env, 'SETTLEMENT_CUTOFF_MS'),
    settlementSweepMs: int(env, 'SETTLEMENT_SWEEP_MS'),
    ledgerRecordWaitMs: int(env, 'LEDGER_RECORD_WAIT_MS'),
  };
}
