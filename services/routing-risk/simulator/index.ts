// The routing simulator: replays a seeded synthetic day of card payments through the
// real planner and strategies, once per strategy, with an in-memory twin of the outcome statistics
// (outcome-memory.ts mirrors the planning read's SQL), and prints acceptance and cost next to the
// oracle. Offline and in-process: `npm run bench:routing` and `svc routing simulate` run it.
export { DEFAULT_PAYMENTS, simulateRouting, simulationReport, type Simulation, type SimulationOptions } from './report.js';
export type { SimResult } from './replay.js';
export { OutcomeMemory } from './outcome-memory.js';
