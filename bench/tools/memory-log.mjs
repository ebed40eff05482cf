// A preload for the controller under a bench (`--node-args="--import=<abs path>/bench/tools/memory-log.mjs"`):
// every 5 s, one JSON line of process.memoryUsage() and V8's heap spaces into
// $MEMLOG_DIR/mem-<pid>.jsonl, to tell the JS heap (used, committed) from the rest of RSS.
import { appendFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { getHeapSpaceStatistics } from 'node:v8';

const file = `${process.env.MEMLOG_DIR ?? '/tmp'}/mem-${process.pid}.jsonl`;
const timer = setInterval(() => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size]]));
  appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...process.memoryUsage(), spaces })}\n`);
}, 5000);
timer.unref();
