import {describe, expect, it} from "vitest";
import {ImageDecodePool} from "../../../../src/engine/vision/imageDecodePool.js";
import {TokenizedImageCache} from "../../../../src/engine/vision/tokenizedImageCache.js";

const never = () => new AbortController().signal;
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Decodes through a pool of one; each decode is finished by hand, by id. */
function decoder() {
    const pool = new ImageDecodePool(1, 10);
    const started: string[] = [];
    const finishers = new Map<string, (value: string) => void>();
    const make = (id: string) => (signal: AbortSignal) => pool.run(() => {
        started.push(id);
        return new Promise<string>((resolve) => finishers.set(id, resolve));
    }, signal);
    return {pool, started, make, finish: (id: string) => finishers.get(id)!(`decoded ${id}`)};
}

describe("a projector's cache of tokenized images", () => {
    it("shares a decode under way between the requests sending the same image, and keeps its result", async () => {
        const {started, make, finish} = decoder();
        const cache = new TokenizedImageCache<string>({images: 8, bytes: 1000}, () => 10);
        const first = cache.get("a", never(), make("a"));
        const second = cache.get("a", never(), make("a"));
        finish("a");
        await expect(Promise.all([first, second])).resolves.toEqual(["decoded a", "decoded a"]);
        await expect(cache.get("a", never(), make("a"))).resolves.toBe("decoded a");
        expect(started).toEqual(["a"]);
        expect(cache.bytes).toBe(10);
    });

    it("never starts a queued decode once every request waiting for it has left", async () => {
        const {pool, started, make, finish} = decoder();
        const cache = new TokenizedImageCache<string>({images: 8, bytes: 1000}, () => 10);
        const busy = cache.get("busy", never(), make("busy"));
        const client = new AbortController();
        const leaving = cache.get("b", client.signal, make("b"));
        client.abort(new Error("client left"));
        await expect(leaving).rejects.toThrow("client left");
        expect(pool.queued).toBe(0);
        finish("busy");
        await busy;
        await settled();
        expect(started).toEqual(["busy"]);
        expect(cache.pending).toBe(0);
    });

    it("goes on for a request still waiting when another sending the same image leaves", async () => {
        const {make, finish} = decoder();
        const cache = new TokenizedImageCache<string>({images: 8, bytes: 1000}, () => 10);
        const client = new AbortController();
        const leaving = cache.get("c", client.signal, make("c"));
        const staying = cache.get("c", never(), make("c"));
        client.abort(new Error("client left"));
        await expect(leaving).rejects.toThrow("client left");
        finish("c");
        await expect(staying).resolves.toBe("decoded c");
        expect(cache.bytes).toBe(10);
    });

    it("drops the result of a running decode whose requests all left, and frees its slot when it ends", async () => {
        const {pool, started, make, finish} = decoder();
        const cache = new TokenizedImageCache<string>({images: 8, bytes: 1000}, () => 10);
        const client = new AbortController();
        const leaving = cache.get("d", client.signal, make("d"));
        const next = cache.get("e", never(), make("e"));
        client.abort(new Error("client left"));
        await expect(leaving).rejects.toThrow("client left");
        expect(pool.running).toBe(1);
        finish("d");
        await settled();
        expect(started).toEqual(["d", "e"]);
        finish("e");
        await next;
        expect(cache.bytes).toBe(10);
        // "d" was not kept: a later request decodes it again.
        void cache.get("d", never(), make("d"));
        await settled();
        expect(started).toEqual(["d", "e", "d"]);
    });

    it("keeps images within its bytes and its count, least recently used going first", async () => {
        const cache = new TokenizedImageCache<string>({images: 3, bytes: 25}, (image) => image.length);
        const decoded = (value: string) => () => Promise.resolve(value);
        await cache.get("a", never(), decoded("aaaaaaaaaa"));
        await cache.get("b", never(), decoded("bbbbbbbbbb"));
        await cache.get("a", never(), decoded("unused"));
        await cache.get("c", never(), decoded("cccccccccc"));
        await settled();
        expect(cache.bytes).toBe(20);
        // "b" went (least recently used): asked again, it is decoded again.
        await expect(cache.get("b", never(), decoded("b again"))).resolves.toBe("b again");
        await settled();
        // 27 bytes with "a": the least recently used went.
        expect(cache.bytes).toBe(17);
        await expect(cache.get("c", never(), decoded("unused"))).resolves.toBe("cccccccccc");
        await expect(cache.get("a", never(), decoded("a again"))).resolves.toBe("a again");
    });

    it("keeps no more images than its count", async () => {
        const cache = new TokenizedImageCache<string>({images: 2, bytes: 1000}, () => 1);
        for (const id of ["a", "b", "c"])
            await cache.get(id, never(), () => Promise.resolve(id));
        await settled();
        expect(cache.bytes).toBe(2);
        await expect(cache.get("a", never(), () => Promise.resolve("a again"))).resolves.toBe("a again");
    });
});
