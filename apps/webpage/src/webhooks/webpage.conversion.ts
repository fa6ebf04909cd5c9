import { Injectable } from '@nestjs/common';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ConversionFailedError, ConversionWebhook } from '@tosdk/nestjs/webhooks';
import type { Converter } from '@tosdk/nestjs/webhooks';
import type { WebPage, WebPageV2 } from '../webpage.resource.js';
import { WebPage as WebPageKind } from '../webpage.resource.js';

/**
 * Converts WebPage between v1 (the hub and storage version: `spec.html`, `spec.exposed`) and v2
 * (`spec.content.html`, `spec.exposure`). Status is the same in both.
 */
@Injectable()
@ConversionWebhook({ resource: WebPageKind, hub: 'v1' })
export class WebPageConversion implements Converter {
  toHub(object: KubernetesObject, fromVersion: string): WebPage {
    if (fromVersion !== 'v2') throw new ConversionFailedError(`WebPage has no version ${fromVersion}`);
    const v2 = object as WebPageV2;
    if (!v2.spec) throw new ConversionFailedError(`WebPage ${v2.metadata?.name ?? ''} at v2 has no spec`);
    const spec: WebPage['spec'] = { html: v2.spec.content.html };
    if (v2.spec.exposure !== undefined) spec.exposed = v2.spec.exposure === 'Public';
    return { ...v2, spec };
  }

  fromHub(hub: KubernetesObject, toVersion: string): WebPageV2 {
    if (toVersion !== 'v2') throw new ConversionFailedError(`WebPage has no version ${toVersion}`);
    const v1 = hub as WebPage;
    if (!v1.spec) throw new ConversionFailedError(`WebPage ${v1.metadata?.name ?? ''} at v1 has no spec`);
    const spec: WebPageV2['spec'] = { content: { html: v1.spec.html } };
    if (v1.spec.exposed !== undefined) spec.exposure = v1.spec.exposed ? 'Public' : 'ClusterOnly';
    return { ...v1, spec };
  }
}
