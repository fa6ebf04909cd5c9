import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.listen(Number(process.env['PORT'] ?? 3000), '127.0.0.1');
}
// no top-level await: the same file builds as an ES module and as CommonJS
bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
