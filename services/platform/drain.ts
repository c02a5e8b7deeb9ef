/**
 * How long open calls and connections may drain on shutdown: SHUTDOWN_TIMEOUT_MS less a margin for
 * closing the rest, so a process exits by itself (code 0) before onShutdown's last resort.
 */
export function drainTimeMs(shutdownTimeoutMs: number): number {
  return Math.max(0, shutdownTimeoutMs - Math.min(1_000, shutdownTimeoutMs / 5));
}
