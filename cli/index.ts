// cli: `svc`, the operator's command line for a running deployment's management API
// (/manage/v1): merchants, their verification, and API keys. bin/svc.js starts main.js.
export { runCli, main, type CliIo } from './main.js';
export type { Command } from './command.js';
export { COMMANDS } from './commands.js';
export {
  ApiError, CliError, DEFAULT_URL, createManagementClient, resolveBaseUrl, resolveToken, type ManagementClient,
} from './client.js';
