import { Injectable } from '@nestjs/common';
import { AdmissionDeniedError, ValidatingWebhook } from '@tosdk/nestjs/webhooks';
import type { AdmissionRequest, AdmissionVerdict, Validator } from '@tosdk/nestjs/webhooks';
import { InvalidWebPageError, validateWebPage } from '../webpage-validation.js';
import { WebPage } from '../webpage.resource.js';

/**
 * Rejects a WebPage the operator could not serve (blank HTML, a name that cannot name a Service)
 * at admission, so `kubectl apply` shows the error before the operator ever sees the page. The
 * same rules as the reconcilers' `validateWebPage`; v2 writes reach it converted to v1
 * (`matchPolicy: Equivalent`).
 */
@Injectable()
@ValidatingWebhook({ resource: WebPage, name: 'validate.webpages.sample.tosdk.io', timeoutSeconds: 5 })
export class WebPageValidator implements Validator<WebPage> {
  validate(request: AdmissionRequest<WebPage>): AdmissionVerdict | undefined {
    const page = request.object;
    if (!page) return undefined;
    try {
      validateWebPage(page);
    } catch (e) {
      if (e instanceof InvalidWebPageError) throw new AdmissionDeniedError(e.message, 422);
      throw e;
    }
    return page.spec?.exposed === true && request.namespace === 'default'
      ? { warnings: ['a page exposed from the default namespace is reachable by anyone'] }
      : undefined;
  }
}
