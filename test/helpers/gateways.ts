import { peerVariable, type ServiceName } from '../../services/platform/config.js';
import { freePort, spawnPart, waitForHttp, type PartProcess } from './processes.js';
import type { TestStack } from './stack.js';

export interface GatewayProcess {
  baseUrl: string;
  process: PartProcess;
}

/**
 * Extra gateway replicas as separate processes, sharing the test stack's database and services:
 * what "correct across several gateway replicas" is tested with.
 */
export async function startGatewayProcesses(
  stack: TestStack, count: number, env: Record<string, string> = {},
): Promise<GatewayProcess[]> {
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const process = spawnPart(`gateway-${i + 1}`, 'gateway/main.js', {
      DATABASE_URL: stack.db.url,
      // Every peer the gateway may call, so adding one to the gateway needs no change here.
      ...Object.fromEntries(Object.entries(stack.serviceUrls).map(([part, url]) => [peerVariable(part as ServiceName), url])),
      OPERATOR_TOKEN: stack.operatorToken,
      INTERNAL_TOKEN: stack.internalToken,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    });
    gateways.push({ baseUrl: `http://127.0.0.1:${port}`, process });
  }
  await Promise.all(gateways.map((g) => waitForHttp(g.process, `${g.baseUrl}/v1/me`)));
  return gateways;
}
