/** A verifying tool's last `Error:` line (its summary), bounded to `maxChars`; credentials never reach its stderr (they are in files). Pure. */
export function lastErrorLine(stderr: string, maxChars: number): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line = [...lines].reverse().find((l) => l.startsWith('Error:')) ?? lines.at(-1) ?? '';
  const text = line.replace(/^Error:\s*/, '');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
