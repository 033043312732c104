import {describe, expect, it} from "vitest";
import {ResponseStore, type StoredResponse} from "../../../../src/api/openai-responses/responseStore.js";
import type {ResponseObject} from "../../../../src/api/openai-responses/responsesResponse.js";

/** A stored response whose conversation is one user message of `text` (its size in the store's bytes). */
const stored = (id: string, text = "hi"): StoredResponse => ({
    response: {id} as ResponseObject,
    items: [{role: "user", content: text}]
});
const bytesOf = (entry: StoredResponse) => JSON.stringify(entry).length;
const ids = (store: ResponseStore, owner: string, all: string[]) => all.filter((id) => store.get(owner, id) != null);

describe("ResponseStore", () => {
    it("keeps one key's few responses while another key stores a thousand and more (default bounds)", () => {
        const store = new ResponseStore();
        for (const id of ["b1", "b2", "b3"])
            store.put("key-b", stored(id));
        for (let index = 0; index < 1200; index++)
            store.put("key-a", stored(`a${index}`));
        expect(ids(store, "key-b", ["b1", "b2", "b3"])).toEqual(["b1", "b2", "b3"]);
        expect(store.size).toBe(1000);
        expect(store.heldBy("key-a")).toBe(997);
        // Key A lost its own oldest, least recently used first.
        expect(store.get("key-a", "a202")).toBeUndefined();
        expect(store.get("key-a", "a203")).toBeDefined();
        expect(store.get("key-a", "a1199")).toBeDefined();
    });

    it("evicts from the key holding the most bytes when the byte bound is exceeded", () => {
        const small = stored("b1", "s");
        const large = stored("a0", "L".repeat(1000));
        const store = new ResponseStore({maxResponses: 100, maxBytes: 3 * bytesOf(small) + 4 * bytesOf(large)});
        for (const id of ["b1", "b2", "b3"])
            store.put("key-b", stored(id, "s"));
        for (let index = 0; index < 10; index++)
            store.put("key-a", stored(`a${index}`, "L".repeat(1000)));
        expect(ids(store, "key-b", ["b1", "b2", "b3"])).toEqual(["b1", "b2", "b3"]);
        expect(store.heldBy("key-a")).toBe(4);
    });

    it("lets a key within its share keep its responses, and evicts from the largest once both exceed it", () => {
        const store = new ResponseStore({maxResponses: 4, maxBytes: 1 << 20});
        store.put("a", stored("a1"));
        store.put("a", stored("a2"));
        store.put("b", stored("b1"));
        store.put("b", stored("b2"));
        // Both hold their share: the newcomer's key is now the largest, and loses its oldest.
        store.put("a", stored("a3"));
        expect(ids(store, "a", ["a1", "a2", "a3"])).toEqual(["a2", "a3"]);
        expect(ids(store, "b", ["b1", "b2"])).toEqual(["b1", "b2"]);
        // A third key's first response takes room from a key over its share; of two that hold as
        // many, the one whose oldest response was used longest ago (a's a2, read before b's).
        store.put("c", stored("c1"));
        expect(store.size).toBe(4);
        expect([store.heldBy("a"), store.heldBy("b"), store.heldBy("c")]).toEqual([1, 2, 1]);
    });

    it("with one key (or none), evicts the least recently used, as before", () => {
        const store = new ResponseStore({maxResponses: 3, maxBytes: 1 << 20});
        for (const id of ["r1", "r2", "r3"])
            store.put("", stored(id));
        // Reading r1 makes it the most recently used: r2 goes first.
        expect(store.get("", "r1")).toBeDefined();
        store.put("", stored("r4"));
        expect(ids(store, "", ["r1", "r2", "r3", "r4"])).toEqual(["r1", "r3", "r4"]);
        store.put("", stored("r5"));
        // Each read above made its response recent in turn (r1, r3, r4): r1 was read first, and goes now.
        expect(ids(store, "", ["r1", "r3", "r4", "r5"])).toEqual(["r3", "r4", "r5"]);
    });

    it("keeps each key's responses apart and frees their room on delete", () => {
        const store = new ResponseStore({maxResponses: 2, maxBytes: 1 << 20});
        store.put("a", stored("same"));
        store.put("b", stored("same"));
        expect(store.get("a", "same")).toBeDefined();
        expect(store.delete("a", "same")).toBe(true);
        expect(store.get("a", "same")).toBeUndefined();
        expect(store.get("b", "same")).toBeDefined();
        expect(store.delete("a", "same")).toBe(false);
        expect(store.size).toBe(1);
        // A response too large for the whole store is not kept, and evicts nothing.
        const huge = new ResponseStore({maxResponses: 10, maxBytes: 100});
        huge.put("a", stored("small"));
        huge.put("a", stored("big", "x".repeat(200)));
        expect(huge.size).toBe(1);
    });
});
