import {expect} from "vitest";
import type {Conversation} from "../../../src/conversation/conversation.js";

/** A table case's expectation: the fields it names, each equal; a field given as `undefined` must be absent. */
export type ExpectedFields = {[K in keyof Conversation]?: Conversation[K] | undefined};

/** Checks the named fields of a converted conversation (the others are another case's business). */
export function expectFields(conversation: Conversation, expected: ExpectedFields): void {
    for (const [key, value] of Object.entries(expected)) {
        if (value === undefined)
            expect(conversation, `'${key}' should be absent`).not.toHaveProperty(key);
        else
            expect(conversation[key as keyof Conversation], key).toEqual(value);
    }
}

/** A table case's 400: the field it names, its code, and a fragment of its message. */
export type ExpectedRefusal = {param: string, code: string, message: string};
