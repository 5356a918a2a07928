// Runs the command line from source (tsx), as bin/aep-companion.mjs runs the bundle.
import { main } from '../../../main/cli/index';

process.exitCode = await main(process.argv.slice(2));
