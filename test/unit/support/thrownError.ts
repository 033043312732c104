import {expect} from "vitest";

/** The error `run` throws, checked to be a `type`; the test fails when nothing is thrown. */
export function thrownError<E extends Error>(type: abstract new (...args: never[]) => E, run: () => unknown): E {
    try {
        run();
    } catch (error) {
        expect(error).toBeInstanceOf(type);
        return error as E;
    }
    throw new Error(`expected a ${type.name}, but nothing was thrown`);
}
