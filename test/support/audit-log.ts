import { open, stat } from 'node:fs/promises';

/** One request as the test control plane's audit log records it (Metadata level, src/dev/control-plane.ts). */
export interface AuditEntry {
  verb: string;
  requestURI: string;
  userAgent?: string;
}

/** Where the log ends now: read from here after the step a test counts. */
export async function auditLogEnd(auditLog: string): Promise<number> {
  return (await stat(auditLog)).size;
}

/** The requests the API server logged from byte `from` on. */
export async function auditEntriesSince(auditLog: string, from: number): Promise<AuditEntry[]> {
  const file = await open(auditLog, 'r');
  try {
    const size = (await file.stat()).size;
    const buffer = Buffer.alloc(Math.max(0, size - from));
    await file.read(buffer, 0, buffer.length, from);
    return buffer
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditEntry);
  } finally {
    await file.close();
  }
}
