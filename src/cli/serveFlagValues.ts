import {InvalidArgumentError} from "commander";
import {parseModelAlias, type ModelAliasSetting} from "../config.js";
import {parseByteSize} from "../models/byteSize.js";
import {parseKeepAlive} from "../models/keepAlive.js";

/**
 * How serve's flag values are read (serveCommand.ts): whole numbers, sizes, durations, pixel counts and
 * the repeatable flags. Each refuses a bad value with commander's InvalidArgumentError, so that the
 * user sees one "invalid argument" line naming the flag, never a stack trace or a silent default.
 */

/** A whole number from `min` to `max`, written as digits alone (Number() by itself would also take `1e3` and `0x10`). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
    return (value: string): number => {
        const parsed = Number(value);
        if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max)
            throw new InvalidArgumentError(`expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}.`);
        return parsed;
    };
}

/** A decimal from `min` to `max`, written as digits with an optional fraction (0.15, 1). */
export function decimal(min: number, max: number) {
    return (value: string): number => {
        const parsed = Number(value);
        if (!/^\d+(\.\d+)?$/.test(value.trim()) || parsed < min || parsed > max)
            throw new InvalidArgumentError(`expected a number from ${min} to ${max}.`);
        return parsed;
    };
}

/** A parser whose error becomes commander's "invalid argument" line for the flag. */
function asArgument<T>(parse: (value: string) => T): (value: string) => T {
    return (value) => {
        try {
            return parse(value);
        } catch (error) {
            throw new InvalidArgumentError(`${(error as Error).message}.`);
        }
    };
}

export const byteSize = asArgument(parseByteSize);

/** A size, or 0 for none (a prompt cache tier turned off). */
export function cacheSize(value: string): number {
    return value.trim() === "0" ? 0 : byteSize(value);
}
export const keepAlive = asArgument(parseKeepAlive);

/** Milliseconds, written as a keep-alive is (`30s`, `2m`, seconds); never "for ever": a shutdown must end. */
export const gracePeriod = asArgument((value: string): number => {
    const parsed = parseKeepAlive(value);
    if (parsed === "forever")
        throw new Error(`'${value}' is not a duration a shutdown can wait (e.g. 5s, 30s, 2m)`);
    return parsed.ms;
});

/** Bytes, as the body parser reads them (its own "mb" is 1024², --memory-limit's MB 1000²). */
export function bodyLimit(value: string): string {
    return `${byteSize(value)}b`;
}

/** `33554432` or `8192x4096`. */
export function pixelCount(value: string): number {
    const match = /^\s*(\d+)\s*(?:[x×*]\s*(\d+)\s*)?$/i.exec(value);
    const pixels = match == null ? Number.NaN : Number(match[1]) * Number(match[2] ?? 1);
    if (!(pixels >= 1) || !Number.isSafeInteger(pixels))
        throw new InvalidArgumentError("expected a pixel count or WIDTHxHEIGHT, e.g. 8192x4096.");
    return pixels;
}

export function collect(value: string, previous: string[]): string[] {
    return [...previous, value];
}

export function modelAlias(value: string, previous: ModelAliasSetting[]): ModelAliasSetting[] {
    try {
        return [...previous, parseModelAlias(value)];
    } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
    }
}

/** Trimmed as keys from the environment are: a key of spaces alone could never be matched. */
export function apiKey(value: string, previous: string[]): string[] {
    const key = value.trim();
    if (key === "")
        throw new InvalidArgumentError("a key must not be empty.");
    return [...previous, key];
}
