import { readFile, writeFile } from 'node:fs/promises';
import { CONFIG_DOC, envRows, renderConfigTable, withConfigTable } from '../config-table.js';

/** `helmcrew config print|write`: the environment variables every part reads, as docs/configuration.md's table. */
export async function configCommand(args: string[]): Promise<number> {
  const table = renderConfigTable(envRows());
  switch (args[0]) {
    case 'print':
      console.log(table);
      return 0;
    case 'write':
      await writeFile(CONFIG_DOC, withConfigTable(await readFile(CONFIG_DOC, 'utf8'), table));
      console.error(`wrote ${CONFIG_DOC}`);
      return 0;
    default:
      console.error('usage: helmcrew config print|write');
      return 2;
  }
}
