import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import { apiErrorMessage, apiStatusCode, isConflict, isForbidden, isNotFound } from '../../src/core/kube/errors.js';

const status = (code: number, message: string) => ({ kind: 'Status', status: 'Failure', code, message });

describe('Kubernetes API errors from either client', () => {
  it.each([
    ['slim 404', new KubeApiError(404, status(404, 'secrets "x" not found'), 'GET', '/api/v1/namespaces/a/secrets/x'), 404, 'secrets "x" not found'],
    ['slim 403', new KubeApiError(403, status(403, 'forbidden: User "u" cannot get'), 'GET', '/'), 403, 'forbidden: User "u" cannot get'],
    ['slim 404 without a Status body', new KubeApiError(404, undefined, 'GET', '/apis/x'), 404, 'HTTP 404'],
    ['client-node 409 (JSON text body)', new ApiException(409, 'HTTP-Code: 409', JSON.stringify(status(409, 'already exists')), {}), 409, 'already exists'],
    ['client-node 404 (plain text body)', new ApiException(404, 'HTTP-Code: 404', '404 page not found', {}), 404, 'HTTP 404'],
    [
      'client-node 422 (object body)',
      new ApiException(422, 'HTTP-Code: 422', status(422, 'spec.interval: Invalid value'), {}),
      422,
      'spec.interval: Invalid value',
    ],
  ])('%s', (_case, error, code, message) => {
    expect(apiStatusCode(error)).toBe(code);
    expect(apiErrorMessage(error)).toBe(message);
    expect([isNotFound(error), isConflict(error), isForbidden(error)]).toEqual([code === 404, code === 409, code === 403]);
  });

  it.each([
    ['a network error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['an object that only looks like one', { code: 404, body: 'x' }],
    ['an Error with a numeric code of another class', Object.assign(new Error('boom'), { code: 404 })],
  ])('%s has no status code', (_case, error) => {
    expect(apiStatusCode(error)).toBeUndefined();
    expect(isNotFound(error)).toBe(false);
  });
});
