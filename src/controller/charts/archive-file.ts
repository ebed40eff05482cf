import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';

const gunzipAsync = promisify(gunzip);

/** Helm's own limits: a chart archive unpacks to at most 100 MiB, one file in it to 5 MiB. */
export const MAX_CHART_BYTES = 100 * 1024 * 1024;
export const MAX_CHART_FILE_BYTES = 5 * 1024 * 1024;

const BLOCK = 512;

export class ChartArchiveError extends Error {
  override name = 'ChartArchiveError';
}

/**
 * One file of a chart archive (.tgz), named as helm's loader names it: relative to the chart's
 * top folder (the archive's first path component is dropped). Undefined when there is no regular
 * file of that name. Read in process: a chart's files are data, nothing is extracted to disk.
 */
export async function readChartArchiveFile(archive: Buffer, path: string): Promise<Buffer | undefined> {
  let tar: Buffer;
  try {
    tar = await gunzipAsync(archive, { maxOutputLength: MAX_CHART_BYTES });
  } catch {
    throw new ChartArchiveError('the chart archive is not a readable .tgz (or unpacks to more than 100 MiB)');
  }
  return findTarFile(tar, path);
}

/** Pure: walks the tar headers (ustar, pax `path`, GNU long names) for the file at `path` below the top folder. */
export function findTarFile(tar: Buffer, path: string): Buffer | undefined {
  let offset = 0;
  let nextName: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) return undefined;
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156]!);
    const body = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    if (body.length < size) throw new ChartArchiveError('the chart archive is truncated');
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      nextName = paxPath(body) ?? nextName;
      continue;
    }
    if (type === 'L') {
      nextName = cString(body);
      continue;
    }
    const name = nextName ?? headerName(header);
    nextName = undefined;
    if (type !== '0' && type !== '\0' && type !== '7') continue;
    if (belowTopFolder(name) !== path) continue;
    if (size > MAX_CHART_FILE_BYTES) throw new ChartArchiveError(`${path} in the chart is larger than 5 MiB`);
    return Buffer.from(body);
  }
  return undefined;
}

/** As helm's loader: backslashes become slashes, the first component (the chart's folder) goes. */
function belowTopFolder(name: string): string {
  const parts = name.replace(/\\/g, '/').split('/');
  return parts.slice(1).join('/');
}

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const ustar = header.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = ustar ? cString(header.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
}

/** Size fields are octal text, or base-256 when the top bit of the first byte is set (large files). */
function octal(field: Buffer): number {
  if (field[0]! & 0x80) {
    let value = 0;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = cString(field).trim();
  return text ? parseInt(text, 8) : 0;
}

/** A pax extended header's records are "<length> <key>=<value>\n". */
function paxPath(body: Buffer): string | undefined {
  let offset = 0;
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset);
    if (space === -1) return undefined;
    const length = parseInt(body.subarray(offset, space).toString('latin1'), 10);
    if (!Number.isFinite(length) || length <= 0) return undefined;
    const record = body.subarray(space + 1, offset + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (record.slice(0, eq) === 'path') return record.slice(eq + 1);
    offset += length;
  }
  return undefined;
}
