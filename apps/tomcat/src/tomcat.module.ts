import { Module } from '@nestjs/common';
import { TomcatReconciler } from './tomcat/tomcat.reconciler.js';
import { WebappReconciler } from './webapp/webapp.reconciler.js';

/** The two controllers (discovered by the one OperatorModule of the app). */
@Module({ providers: [TomcatReconciler, WebappReconciler] })
export class TomcatModule {}
