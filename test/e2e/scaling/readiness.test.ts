import fs from "node:fs/promises";
import path from "node:path";
import {describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {startTestServer} from "../support/testServer.js";

/** GET /health/ready on a real server: what an orchestrator's probe sees as the models folder fills. */
describe("readiness on a real server", () => {
    // The drain itself (503s while a reply under way finishes) is pinned by test/http/drain.test.ts, whose reply can be held.
    it("is 503 no_models with an empty models folder and 200 once a model is copied in, while /health stays 200", async () => {
        const server = await startTestServer({});
        const base = server.url.replace(/\/v1$/, "");
        try {
            const empty = await fetch(`${base}/health/ready`);
            expect(empty.status).toBe(503);
            expect(empty.headers.get("retry-after")).toBe("2");
            expect(await empty.json()).toMatchObject({status: "not_ready", reason: "no_models"});
            expect((await fetch(`${base}/health`)).status).toBe(200);

            await fs.symlink(await buildTinyChatModel(), path.join(server.modelsDir, "tiny.gguf"));
            // The folder is rescanned every 2 s: the probe turns ready by itself.
            while ((await fetch(`${base}/health/ready`)).status !== 200)
                await new Promise((resolve) => setTimeout(resolve, 200));
            expect(await (await fetch(`${base}/health/ready`)).json()).toEqual({status: "ready"});
        } finally {
            await server.stop();
        }
    });
});
