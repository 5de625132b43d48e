#!/usr/bin/env node
import { runServerBinary } from './run-server.js';

runServerBinary({ name: 'portico-server' });
