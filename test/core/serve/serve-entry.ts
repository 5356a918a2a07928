// Runs the `aep-companion` command line from source (tests spawn it with `node --import tsx`),
// so the child processes exercise the current code rather than a previously built bundle.
import { main } from '../../../main/cli/index';

process.exitCode = await main(process.argv.slice(2));
