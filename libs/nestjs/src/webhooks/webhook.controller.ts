import { Body, Controller, Inject, Param, Post, Res } from '@nestjs/common';
import { WebhookServer } from './webhook.server.js';

/** The part of a platform response the controller uses (Express and Fastify both have it). */
interface ReplyLike {
  status(code: number): { send(body: unknown): unknown } | ReplyLike;
  send(body: unknown): unknown;
}

/**
 * The webhooks as Nest routes, for an application that serves its own HTTP server over HTTPS
 * (`NestFactory.create(App, { httpsOptions })`): `POST /webhooks/validate/:name`,
 * `/webhooks/mutate/:name`, `/webhooks/convert/:name`. Mounted with `WebhookModule.forRoot({ controller: true })`.
 */
@Controller('webhooks')
export class WebhookController {
  constructor(@Inject(WebhookServer) private readonly webhooks: WebhookServer) {}

  /** Answers a review posted to `/webhooks/<validate|mutate|convert>/<name>` with the handler's status and body. */
  @Post(':type/:name')
  async review(
    @Param('type') type: string,
    @Param('name') name: string,
    @Body() body: unknown,
    @Res() reply: ReplyLike,
  ): Promise<void> {
    const answer = await this.webhooks.handler.handle(`/${type}/${name}`, body);
    reply.status(answer.status).send(answer.body);
  }
}
