import { runCli } from './run.js';
import { COMMANDS, ENVIRONMENT_HELP } from './commands.js';

process.exitCode = await runCli(COMMANDS, process.argv.slice(2), ENVIRONMENT_HELP);
