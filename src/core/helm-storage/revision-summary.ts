import type { HelmReleasePayload } from './release-record.js';
import { storedRelease, type StoredRelease } from './release-storage.js';

/**
 * Pure: what a reader that keeps helm's records in memory keeps of one (the web's record watch):
 * the revision's summary — revision, status, chart, app version, description, when — and its chart's
 * NOTES, bounded. Never the values (`config` is empty) nor the manifest: a summary answers history,
 * status and the plans that need no values; a plan that compares values reads the records.
 */

/** NOTES kept per release, in characters (helm's own NOTES of common charts are well under 2,000). */
export const MAX_NOTES_CHARS = 4000;

export interface RevisionSummary {
  summary: StoredRelease;
  /** The revision's rendered NOTES.txt, bounded; absent when the chart has none. */
  notes?: string;
}

export function revisionSummary(payload: HelmReleasePayload, labels?: Record<string, string>): RevisionSummary {
  const { config: _config, manifest: _manifest, labels: _labels, ...rest } = storedRelease(payload, labels);
  const notes = typeof payload.info?.notes === 'string' && payload.info.notes.trim() ? boundedNotes(payload.info.notes) : undefined;
  return { summary: { ...rest, config: {} }, ...(notes ? { notes } : {}) };
}

function boundedNotes(notes: string): string {
  return notes.length > MAX_NOTES_CHARS ? `${notes.slice(0, MAX_NOTES_CHARS)}\n… (${notes.length - MAX_NOTES_CHARS} more characters left out)` : notes;
}
