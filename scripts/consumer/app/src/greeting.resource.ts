import { defineResource } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';

export interface GreetingSpec {
  message: string;
}

export interface GreetingStatus {
  configMap?: string;
  observedGeneration?: number;
}

export type Greeting = CustomResource<GreetingSpec, GreetingStatus>;

export const Greeting = defineResource<Greeting>({
  group: 'consumer.tosdk.io',
  version: 'v1',
  kind: 'Greeting',
});
