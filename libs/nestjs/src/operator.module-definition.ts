import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { OperatorModuleOptions } from './operator-module-options.js';

/** Extras of `forRoot`/`forRootAsync` beside the options. */
export interface OperatorModuleExtras {
  /** Make the module global so every module can inject the Operator, the client and controller handles. Defaults to true. */
  isGlobal?: boolean;
}

export const {
  ConfigurableModuleClass: ConfigurableOperatorModule,
  MODULE_OPTIONS_TOKEN: OPERATOR_MODULE_OPTIONS,
  OPTIONS_TYPE: OPERATOR_MODULE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: OPERATOR_MODULE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<OperatorModuleOptions>({ moduleName: 'Operator' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createOperatorOptions')
  .setExtras<OperatorModuleExtras>({ isGlobal: true }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal ?? true,
  }))
  .build();
