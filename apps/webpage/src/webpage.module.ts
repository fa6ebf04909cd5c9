import { Module } from '@nestjs/common';
import type { DynamicModule, Type } from '@nestjs/common';
import { WebPageLowLevelReconciler } from './lowlevel/webpage-lowlevel.reconciler.js';
import { WebPageManagedReconciler } from './managed/webpage-managed.reconciler.js';
import { WebPageStandaloneReconciler } from './standalone/webpage-standalone.reconciler.js';
import type { WebPageFlavour } from './webpage-flavour.js';

const RECONCILERS: Record<WebPageFlavour, Type> = {
  lowlevel: WebPageLowLevelReconciler,
  managed: WebPageManagedReconciler,
  standalone: WebPageStandaloneReconciler,
};

/** The WebPage feature: the reconciler of one flavour (discovered by the OperatorModule). */
@Module({})
export class WebPageModule {
  /** The module with the reconciler of `flavour`. */
  static forFlavour(flavour: WebPageFlavour): DynamicModule {
    return { module: WebPageModule, providers: [RECONCILERS[flavour]] };
  }
}
