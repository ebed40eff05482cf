import { boolean, positiveInt, positiveNumber, type Env } from './parsers.js';

/**
 * Every environment variable helmcrew reads is declared once, beside the reader that reads it,
 * and read only through its declaration: a reader cannot name an undeclared variable (the type
 * refuses it) and a default lives in one place, which both the reader and docs/configuration.md
 * (`helmcrew config write`) use. test/unit/config-registry.test.ts scans src/ for any other read.
 */

/** Who reads a variable: the table's "read by" column. */
export type EnvPart = 'controller' | 'notify' | 'bot' | 'web' | 'cli' | 'dev';

export interface EnvVarSpec {
  /** The value used when the variable is unset or empty, in the variable's own unit. */
  readonly default?: string | number | boolean;
  /** A default computed at start-up (from another variable, the pod): how the table says it. */
  readonly defaultText?: string;
  /** Who reads it, when not the declaration's parts. */
  readonly parts?: readonly EnvPart[];
  /** What it does, for the table (Markdown, one line). */
  readonly meaning: string;
}

export type EnvSpecs = Record<string, EnvVarSpec>;

type NamesWithDefault<S extends EnvSpecs, T> = { [K in keyof S]: S[K] extends { readonly default: T } ? K : never }[keyof S] & string;

export interface EnvRow {
  name: string;
  parts: readonly EnvPart[];
  default?: string | number | boolean;
  defaultText?: string;
  meaning: string;
}

export class EnvDeclaration<S extends EnvSpecs> {
  constructor(
    readonly parts: readonly EnvPart[],
    readonly specs: S,
  ) {}

  rows(): EnvRow[] {
    return Object.entries(this.specs).map(([name, spec]) => ({
      name,
      parts: spec.parts ?? this.parts,
      default: spec.default,
      defaultText: spec.defaultText,
      meaning: spec.meaning,
    }));
  }

  /** The declared default of a variable a reader parses its own way. */
  fallback<K extends NamesWithDefault<S, string | number | boolean>>(name: K): S[K]['default'] & {} {
    return this.specs[name]!.default as S[K]['default'] & {};
  }

  /** The default as the reader's parser needs it; the types already keep a number's parser off a string's default. */
  defaultOf(name: string, type: 'string'): string;
  defaultOf(name: string, type: 'number'): number;
  defaultOf(name: string, type: 'boolean'): boolean;
  defaultOf(name: string, type: 'string' | 'number' | 'boolean'): string | number | boolean {
    const value = this.specs[name]?.default;
    if (typeof value !== type) throw new TypeError(`${name} has no ${type} default`);
    return value as string | number | boolean;
  }

  /** The declared variables of `env`, read with their declared defaults. */
  in(env: Env): EnvReader<S> {
    return new EnvReader(this, env);
  }
}

export class EnvReader<S extends EnvSpecs> {
  constructor(
    private readonly declaration: EnvDeclaration<S>,
    private readonly env: Env,
  ) {}

  /** The value as set (undefined when unset), for a reader that decides itself what empty means. */
  raw(name: keyof S & string): string | undefined {
    return this.env[name];
  }

  /** The value, or the declared default when unset or empty. */
  text(name: NamesWithDefault<S, string>): string {
    return this.env[name] || this.declaration.defaultOf(name, 'string');
  }

  positiveInt(name: NamesWithDefault<S, number>): number {
    return positiveInt(this.env, name, this.declaration.defaultOf(name, 'number'));
  }

  positiveNumber(name: NamesWithDefault<S, number>): number {
    return positiveNumber(this.env, name, this.declaration.defaultOf(name, 'number'));
  }

  boolean(name: NamesWithDefault<S, boolean>): boolean {
    return boolean(this.env, name, this.declaration.defaultOf(name, 'boolean'));
  }

  /** A number parsed the reader's own way (a range, a unit), with the declared default. */
  parse<K extends NamesWithDefault<S, number>, T>(name: K, parse: (env: Env, name: K, fallback: number) => T): T {
    return parse(this.env, name, this.declaration.defaultOf(name, 'number'));
  }
}

export function declareEnv<const S extends EnvSpecs>(parts: readonly EnvPart[], specs: S): EnvDeclaration<S> {
  return new EnvDeclaration(parts, specs);
}
