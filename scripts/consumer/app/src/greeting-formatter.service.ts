import { Injectable } from '@nestjs/common';

@Injectable()
export class GreetingFormatter {
  format(message: string): string {
    return `Hello, ${message}!`;
  }
}
