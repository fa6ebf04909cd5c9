import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import * as pkg from '@tosdk/nestjs';
import * as testing from '@tosdk/nestjs/testing';

@Injectable()
class Clock {
  now(): number {
    return 42;
  }
}

@Injectable()
class UsesClock {
  // No @Inject(): Nest must find `Clock` from the emitted `design:paramtypes` metadata.
  constructor(readonly clock: Clock) {}
}

describe('@tosdk/nestjs package', () => {
  it('is importable by its package name and its testing subpath', () => {
    expect(pkg.PACKAGE_NAME).toBe('@tosdk/nestjs');
    expect(testing.TESTING_ENTRY_POINT).toBe('@tosdk/nestjs/testing');
  });

  it('compiles with decorator metadata so Nest injects constructor parameters by type', async () => {
    expect(Reflect.getMetadata('design:paramtypes', UsesClock)).toEqual([Clock]);
    const moduleRef = await Test.createTestingModule({ providers: [Clock, UsesClock] }).compile();
    expect(moduleRef.get(UsesClock).clock.now()).toBe(42);
    await moduleRef.close();
  });
});
