import { expect } from 'vitest';

/**
 * Vitest's asymmetric matchers are typed `any`; these give each one the type of the value it
 * stands for, so expected objects stay typed.
 */
export const matching = (pattern: RegExp): string => expect.stringMatching(pattern) as string;
export const containing = (items: string[]): string[] => expect.arrayContaining(items) as string[];
export const objectWith = (fields: Record<string, unknown>): Record<string, unknown> => expect.objectContaining(fields) as Record<string, unknown>;
