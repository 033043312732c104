import {describe, expect, it} from "vitest";
import {promptCacheSettings} from "../../../../src/engine/promptCache/promptCacheSettings.js";

const gib = 2 ** 30;
const defaults = {promptCache: true, promptCacheSize: 10 * gib, promptCacheDir: "/cache"};

describe("the prompt cache's budgets", () => {
    it("give RAM an eighth of the memory budget by default, at most 4 GiB", () => {
        expect(promptCacheSettings(defaults, 16 * gib).ramBytes).toBe(2 * gib);
        expect(promptCacheSettings(defaults, 64 * gib).ramBytes).toBe(4 * gib);
    });

    it("take --prompt-cache-ram as given, up to half the memory budget", () => {
        expect(promptCacheSettings({...defaults, promptCacheRam: 3 * gib}, 16 * gib).ramBytes).toBe(3 * gib);
        expect(promptCacheSettings({...defaults, promptCacheRam: 12 * gib}, 16 * gib).ramBytes).toBe(8 * gib);
        expect(promptCacheSettings({...defaults, promptCacheRam: 0}, 16 * gib).ramBytes).toBe(0);
    });

    it("have no disk tier at size 0, and no tier at all with --no-prompt-cache", () => {
        expect(promptCacheSettings(defaults, 16 * gib).disk).toEqual({dir: "/cache", bytes: 10 * gib});
        expect(promptCacheSettings({...defaults, promptCacheSize: 0}, 16 * gib).disk).toBeNull();
        expect(promptCacheSettings({...defaults, promptCache: false}, 16 * gib)).toEqual({ramBytes: 0, disk: null});
    });
});
