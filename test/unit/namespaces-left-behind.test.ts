import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { createdByFile, namespacesAddedSince, namespacesLeftBehind, type NamespaceSeen, type ReleaseSeen } from '../../src/dev/harness/left-behind.js';

const before = new Set(['default', 'kube-system', 'old-terminating']);
const ns = (name: string, terminating: boolean): NamespaceSeen => ({ name, terminating });
const release = (namespace: string, name: string, finalizers: string[]): ReleaseSeen => ({ namespace, name, finalizers });

describe('namespacesLeftBehind: what a test file leaves that will not go by itself', () => {
  it('nothing new, nothing left', () => {
    expect(namespacesLeftBehind(before, [ns('default', false), ns('kube-system', false)], [])).toEqual([]);
  });

  it('a new namespace never deleted is left', () => {
    expect(namespacesLeftBehind(before, [ns('default', false), ns('hc-1a2b3c', false)], [])).toEqual([{ namespace: 'hc-1a2b3c', why: 'never deleted' }]);
  });

  it("a new Terminating namespace whose HelmRelease keeps helmcrew's finalizer is left, naming the release", () => {
    const left = namespacesLeftBehind(before, [ns('hc-1a2b3c', true)], [release('hc-1a2b3c', 'unicorn', [FINALIZER]), release('other', 'x', [FINALIZER])]);
    expect(left).toEqual([{ namespace: 'hc-1a2b3c', why: `Terminating, held by ${FINALIZER} on HelmRelease unicorn` }]);
  });

  it('a new Terminating namespace with no helmcrew finalizer in it is on its way out', () => {
    expect(namespacesLeftBehind(before, [ns('hc-1a2b3c', true)], [release('hc-1a2b3c', 'unicorn', ['someone.else/finalizer'])])).toEqual([]);
  });

  it('namespaces there before the file are not its doing, whatever their state', () => {
    expect(namespacesLeftBehind(before, [ns('old-terminating', true)], [release('old-terminating', 'a', [FINALIZER])])).toEqual([]);
  });
});

describe('createdByFile: whose namespaces a file judges when files run side by side', () => {
  const marked = (name: string, createdBy?: string): NamespaceSeen => ({ name, terminating: false, createdBy });

  it("beside another file: only the namespaces it marked; unmarked and the other file's are not its to judge", () => {
    const left = namespacesLeftBehind(before, [marked('mine', 'test-a'), marked('theirs', 'test-b'), marked('unmarked')], [], createdByFile('test-a', false));
    expect(left.map((l) => l.namespace)).toEqual(['mine']);
  });

  it('alone: unmarked new namespaces are its doing too (made by helm or a controller it ran)', () => {
    const left = namespacesLeftBehind(before, [marked('mine', 'test-a'), marked('unmarked')], [], createdByFile('test-a', true));
    expect(left.map((l) => l.namespace)).toEqual(['mine', 'unmarked']);
  });
});

describe('namespacesAddedSince', () => {
  it('names what appeared, Terminating or not', () => {
    expect(namespacesAddedSince(before, [ns('default', false), ns('a', false), ns('b', true), ns('old-terminating', true)])).toEqual(['a', 'b']);
  });
});
