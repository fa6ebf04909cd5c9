import { Get, Module, RequestMethod } from '@nestjs/common';
import type { DynamicModule, ModuleMetadata, Type } from '@nestjs/common';
import { HealthCheck, TerminusModule } from '@nestjs/terminus';
import { OperatorHealthController } from './operator-health.controller.js';
import { OperatorHealthIndicator } from './operator-health.indicator.js';

/** Where the probes are served. */
export interface OperatorHealthPaths {
  /** Base path of the probes. Defaults to `health`. */
  path?: string;
  /** Path of the liveness probe under `path`. Defaults to `liveness`. */
  livenessPath?: string;
  /** Path of the readiness probe under `path`. Defaults to `readiness`. */
  readinessPath?: string;
}

/** Options of {@link OperatorHealthModule.forRoot}. */
export interface OperatorHealthModuleOptions extends OperatorHealthPaths {
  /** Serve the probes with {@link OperatorHealthController}. Defaults to true; false to use your own controller. */
  controller?: boolean;
}

/** Options of {@link OperatorHealthModule.forRootAsync}: the paths come from a factory (e.g. ConfigService). */
export interface OperatorHealthModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers the factory gets, in order. Defaults to none. */
  inject?: (string | symbol | Type)[];
  /** The paths (resolved before the routes are registered). */
  useFactory: (...args: never[]) => OperatorHealthPaths | Promise<OperatorHealthPaths>;
  /** Serve the probes. Decided up front (a module's controllers are static). Defaults to true. */
  controller?: boolean;
}

// Nest's route metadata keys (as @Controller and @Get write them)
const PATH = 'path';
const METHOD = 'method';

/** A controller class of its own per module, so each module's paths stay its own. */
function healthController(): Type<OperatorHealthController> {
  class ConfiguredOperatorHealthController extends OperatorHealthController {
    override liveness() {
      return super.liveness();
    }
    override readiness() {
      return super.readiness();
    }
  }
  for (const method of ['liveness', 'readiness'] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(ConfiguredOperatorHealthController.prototype, method)!;
    Get(method)(ConfiguredOperatorHealthController.prototype, method, descriptor);
    HealthCheck()(ConfiguredOperatorHealthController.prototype, method, descriptor);
  }
  Reflect.defineMetadata(PATH, 'health', ConfiguredOperatorHealthController);
  Reflect.defineMetadata('__controller__', true, ConfiguredOperatorHealthController);
  return ConfiguredOperatorHealthController;
}

function applyPaths(controller: Type<OperatorHealthController>, paths: OperatorHealthPaths): void {
  const proto = controller.prototype as unknown as { liveness: object; readiness: object };
  Reflect.defineMetadata(PATH, paths.path ?? 'health', controller);
  Reflect.defineMetadata(PATH, paths.livenessPath ?? 'liveness', proto.liveness);
  Reflect.defineMetadata(PATH, paths.readinessPath ?? 'readiness', proto.readiness);
  Reflect.defineMetadata(METHOD, RequestMethod.GET, proto.liveness);
  Reflect.defineMetadata(METHOD, RequestMethod.GET, proto.readiness);
}

const HEALTH_PATHS = Symbol('tosdk:OperatorHealthPaths');

/**
 * Terminus health of the operator: exports {@link OperatorHealthIndicator} and (by default) serves
 * `GET /health/liveness` and `GET /health/readiness` (paths configurable). Needs the `Operator`
 * (a global `OperatorModule`, the default).
 *
 * ```ts
 * import { OperatorHealthModule } from '@tosdk/nestjs/health';
 * imports: [OperatorHealthModule.forRoot({ path: 'probes' })] // GET /probes/liveness, /probes/readiness
 * imports: [OperatorHealthModule.forRootAsync({ imports: [ConfigModule], inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ path: config.get('HEALTH_PATH') }) })]
 * ```
 */
@Module({})
export class OperatorHealthModule {
  /** The module, with or without the ready-made controller, at the given paths. */
  static forRoot(options: OperatorHealthModuleOptions = {}): DynamicModule {
    const controller = options.controller === false ? undefined : healthController();
    if (controller) applyPaths(controller, options);
    return {
      module: OperatorHealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      providers: [OperatorHealthIndicator],
      controllers: controller ? [controller] : [],
      exports: [OperatorHealthIndicator, TerminusModule],
    };
  }

  /** The module with the paths from a factory, resolved before the routes are registered. */
  static forRootAsync(options: OperatorHealthModuleAsyncOptions): DynamicModule {
    const controller = options.controller === false ? undefined : healthController();
    return {
      module: OperatorHealthModule,
      imports: [...(options.imports ?? []), TerminusModule.forRoot({ logger: false })],
      providers: [
        OperatorHealthIndicator,
        {
          provide: HEALTH_PATHS,
          inject: options.inject ?? [],
          useFactory: async (...args: never[]) => {
            const paths = await options.useFactory(...args);
            if (controller) applyPaths(controller, paths);
            return paths;
          },
        },
      ],
      controllers: controller ? [controller] : [],
      exports: [OperatorHealthIndicator, TerminusModule],
    };
  }
}
