// `npm run bench:routing`: the routing simulator (services/routing-risk/simulator/, also
// `svc routing simulate`) replays a synthetic day through the real planner and strategies, once
// per strategy, and prints acceptance, cost, exploration and the outage's detection and recovery
// next to the oracle and the targets; never passes or fails on them. BENCH_PAYMENTS sets
// the day's payments (20,000).
import { DEFAULT_PAYMENTS, simulateRouting, simulationReport } from '../../services/routing-risk/index.js';

const payments = Number(process.env.BENCH_PAYMENTS ?? DEFAULT_PAYMENTS);
console.log(simulationReport(simulateRouting({ payments })).join('\n'));
