import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {toModelObject} from "../../../src/api/models/toModelObject.js";
import type {LoadedModel} from "../../../src/engine/loadedModel.js";
import {createLogger} from "../../../src/logger.js";
import type {ContextPlan} from "../../../src/models/contextPlan.js";
import {ModelRegistry} from "../../../src/models/modelRegistry.js";
import {descriptor, FakeLoader, StaticCatalogue} from "../../http/support/fakeEngine.js";
import {malformedProjectorBytes} from "../../fixtures/gguf/brokenModels.js";

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a projector that fails its checks", () => {
    it("is not handed to the loader: the model loads for text, and says why it takes no images", async () => {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-projector-"));
        const projector = path.join(dir, "mmproj-m.gguf");
        await fs.writeFile(projector, malformedProjectorBytes());
        try {
            const loader = new FakeLoader();
            const registry = new ModelRegistry(new StaticCatalogue([descriptor("m", {projector})]), loader.load,
                {context: {ctxSize: 64, parallel: 1, vision: true}}, createLogger("silent"));
            expect(registry.list()[0]!.capabilities).toContain("vision");
            (await registry.acquire("m", "chat")).release();
            const plan: ContextPlan = loader.made[0]!.plan;
            expect(plan.projector).toBeUndefined();
            expect(plan.projectorRefusal).toMatch(/^its projector mmproj-m\.gguf cannot be loaded: the GGUF header claims 1099511627776 metadata entries/);
        } finally {
            await fs.rm(dir, {recursive: true, force: true});
        }
    });

    it("found so at the scan, is listed with the reason and without vision", () => {
        const projectorError = "its projector mmproj-m.gguf cannot be loaded: the GGUF header ends past the end of the file (124 bytes)";
        const registry = new ModelRegistry(new StaticCatalogue([descriptor("m", {projector: "/models/mmproj-m.gguf", projectorError})]), new FakeLoader().load,
            {context: {ctxSize: 64, parallel: 1, vision: true}}, createLogger("silent"));
        const entry = toModelObject(registry.list()[0]!);
        expect(entry).toMatchObject({status: "available", vision_error: projectorError});
        expect(entry.capabilities).not.toContain("vision");
    });
});

describe("shutdown during a load that hangs", () => {
    it("is not held by it: the load is left behind, and counted", async () => {
        const hung = () => new Promise<LoadedModel>(() => {});
        const registry = new ModelRegistry(new StaticCatalogue([descriptor("m")]), hung, {context: {ctxSize: 64, parallel: 1}}, createLogger("silent"));
        const request = registry.acquire("m", "chat").catch((error: unknown) => error);
        await settle();
        expect(registry.list()[0]!.status).toBe("loading");
        registry.stopQueueing();
        await expect(registry.dispose(50)).resolves.toEqual({loadsLeftRunning: 1});
        expect(await request).toMatchObject({code: "shutting_down"});
    });
});
