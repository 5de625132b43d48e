#!/usr/bin/env node
import { run } from './main.js';

const code = await run(process.argv);
// Exit once output is flushed, so no leftover socket or timer keeps a finished command alive.
process.stdout.write('', () => process.exit(code));
