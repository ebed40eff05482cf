/** Exhaustiveness: a switch over a union ends here only for a value its cases did not name. */
export function assertNever(value: never): never {
  throw new Error(`unexpected state: ${JSON.stringify(value)}`);
}
