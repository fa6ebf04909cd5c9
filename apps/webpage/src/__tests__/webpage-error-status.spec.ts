import { describe, expect, it, jest } from '@jest/globals';
import { AggregatedOperatorError, ReconcileError, ResourceID } from '@tosdk/core';
import type { Context } from '@tosdk/core';
import { webPageErrorStatus } from '../webpage-status.js';
import { InvalidWebPageError } from '../webpage-validation.js';
import type { WebPage } from '../webpage.resource.js';

const page: WebPage = {
  apiVersion: 'sample.tosdk.io/v1',
  kind: 'WebPage',
  metadata: { name: 'p', namespace: 'web', generation: 4 },
  spec: { html: ' ' },
  status: { configMapName: 'p-html', ready: true, observedGeneration: 3 },
};

function context() {
  const warning = jest.fn(async (_resource: WebPage, _reason: string, _message: string) => undefined);
  const ctx = {
    eventRecorder: { warning, normal: jest.fn(async () => undefined) },
    logger: { warn: jest.fn() },
  } as unknown as Context<WebPage>;
  return { ctx, warning };
}

const invalid = () => new InvalidWebPageError('BlankHtml', 'spec.html is blank: set it to the page to serve');

describe('webPageErrorStatus', () => {
  it.each([
    ['as thrown', () => invalid()],
    [
      'wrapped by the framework',
      () => new ReconcileError('failed', 'webpage', new ResourceID('p', 'web'), { cause: invalid() }),
    ],
    [
      'among the errors of a workflow',
      () =>
        new AggregatedOperatorError(
          'workflow failed',
          new Map<string, unknown>([
            ['service', new Error('other')],
            ['configmap', invalid()],
          ]),
        ),
    ],
  ])('finds an invalid page %s: error status, InvalidWebPage Warning, no retry', async (_how, error) => {
    const { ctx, warning } = context();
    const control = await webPageErrorStatus(page, ctx, error());
    expect(control.noRetry).toBe(true);
    expect(control.resource?.status).toEqual({
      configMapName: 'p-html',
      observedGeneration: 4,
      ready: false,
      errorMessage: 'spec.html is blank: set it to the page to serve',
    });
    expect(warning).toHaveBeenCalledWith(
      page,
      'InvalidWebPage',
      'spec.html is blank: set it to the page to serve',
    );
  });

  it('retries anything else, with the cause of the framework error as message and a ReconcileFailed Warning', async () => {
    const { ctx, warning } = context();
    const error = new ReconcileError(
      'webpage: reconcile for web/p: boom',
      'webpage',
      new ResourceID('p', 'web'),
      {
        cause: new Error('boom'),
      },
    );
    const control = await webPageErrorStatus(page, ctx, error);
    expect(control.noRetry).toBe(false);
    expect(control.resource?.status?.errorMessage).toBe('boom');
    expect(warning).toHaveBeenCalledWith(page, 'ReconcileFailed', 'boom');
  });

  it('still reports the status when the Warning cannot be published', async () => {
    const { ctx, warning } = context();
    warning.mockRejectedValueOnce(new Error('forbidden'));
    const control = await webPageErrorStatus(page, ctx, invalid());
    expect(control.resource?.status?.errorMessage).toContain('blank');
    expect(ctx.logger.warn).toHaveBeenCalled();
  });
});
