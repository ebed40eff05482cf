// A benchmark's result as JSON (bench/results/<name>.json): the tables it measured, the command,
// the commit, the machine and the date. bench/RESULTS.md is generated from these files
// (bench/report.ts); the Markdown a run prints is rendered from the same tables.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const RESULT_FORMAT = 'helmcrew-bench/1';

const Cell = Type.Union([Type.String(), Type.Number(), Type.Null()]);

const TableSchema = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    columns: Type.Array(Type.String(), { minItems: 1 }),
    rows: Type.Array(Type.Array(Cell)),
    /** Lines printed under the table (what a column means, a ratio of the run). */
    notes: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

const MachineSchema = Type.Object({
  cpuModel: Type.String({ minLength: 1 }),
  cores: Type.Integer({ minimum: 1 }),
  memoryMiB: Type.Integer({ minimum: 1 }),
  /** 1/5/15-minute load average when the run began and ended: how busy the machine was. */
  loadStart: Type.String(),
  loadEnd: Type.String(),
});

export const BenchResultSchema = Type.Object({
  format: Type.Literal(RESULT_FORMAT),
  /** The file's name and the report's section: the benchmark's name, or --as. */
  name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$' }),
  /** The benchmark that ran (bench/main.ts's name). */
  benchmark: Type.String({ minLength: 1 }),
  summary: Type.String(),
  /** How to run it again: `npm run bench -- <name> <options>`. */
  command: Type.String({ minLength: 1 }),
  /** The commit measured (short hash; "(src/ has uncommitted changes)" when it had). */
  commit: Type.String({ minLength: 1 }),
  /** When it started (ISO 8601, UTC). */
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}' }),
  seconds: Type.Number({ minimum: 0 }),
  machine: MachineSchema,
  versions: Type.Record(Type.String(), Type.String()),
  /** The conditions in words (--note), e.g. "measured under load from other work". */
  note: Type.Optional(Type.String()),
  tables: Type.Array(TableSchema, { minItems: 1 }),
  /** The raw figures the tables were made from, for whoever wants more than the tables. */
  data: Type.Optional(Type.Unknown()),
});

export type Table = Static<typeof TableSchema>;
export type Cell = Static<typeof Cell>;
export type BenchResult = Static<typeof BenchResultSchema>;
export type Machine = Static<typeof MachineSchema>;

/** What a benchmark's run returns: its tables and, optionally, the raw figures. */
export interface BenchOutput {
  tables: Table[];
  data?: unknown;
}

/** A result file's text → a checked result; throws naming the file, the path and what is wrong. */
export function parseResult(text: string, file: string): BenchResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON: ${(error as Error).message}`, { cause: error });
  }
  const errors = [...Value.Errors(BenchResultSchema, value)];
  if (errors.length > 0) {
    const lines = errors.slice(0, 5).map((e) => `  ${e.path || '/'}: ${e.message}${e.value === undefined ? ' (missing)' : ''}`);
    throw new Error(`${file}: not a benchmark result (${RESULT_FORMAT}):\n${lines.join('\n')}${errors.length > 5 ? `\n  … ${errors.length - 5} more` : ''}`);
  }
  const result = value as BenchResult;
  result.tables.forEach((table, t) =>
    table.rows.forEach((row, r) => {
      if (row.length !== table.columns.length)
        throw new Error(`${file}: /tables/${t}/rows/${r}: ${row.length} cells for ${table.columns.length} columns (table "${table.title}")`);
    }),
  );
  return result;
}

const cellText = (cell: Cell): string => (cell === null ? '—' : String(cell).replaceAll('|', '\\|').replaceAll('\n', ' '));

/** One table as Markdown: a bold title line, the table, its notes. */
export function renderTable(table: Table): string[] {
  return [
    `**${table.title}**`,
    '',
    `| ${table.columns.map(cellText).join(' | ')} |`,
    `|${table.columns.map(() => '---').join('|')}|`,
    ...table.rows.map((row) => `| ${row.map(cellText).join(' | ')} |`),
    ...(table.notes?.length ? ['', ...table.notes] : []),
    '',
  ];
}
