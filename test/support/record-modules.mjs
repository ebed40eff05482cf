// Preloaded with `node --import`: records the URL of every ES module the process resolves
// into the file named by RECORD_MODULES_TO (test/unit/controller-module-graph.test.ts).
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(process.env.RECORD_MODULES_TO)}, result.url + '\\n');
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
