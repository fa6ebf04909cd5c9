import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { OperatorModule, resourceContextMixin } from '@tosdk/nestjs';
import { OperatorHealthModule } from '@tosdk/nestjs/health';
import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
import { GreetingFormatter } from './greeting-formatter.service.js';
import { GreetingReconciler } from './greeting.reconciler.js';

@Module({
  imports: [
    LoggerModule.forRoot({ pinoHttp: { mixin: resourceContextMixin, autoLogging: false } }),
    OperatorModule.forRoot(),
    OperatorHealthModule.forRoot(),
    OperatorMetricsModule.forRoot(),
  ],
  providers: [GreetingFormatter, GreetingReconciler],
})
export class AppModule {}
