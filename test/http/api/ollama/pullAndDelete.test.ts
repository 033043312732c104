// Ollama's /api/pull and /api/delete over the engine double: names it cannot pull answer at once
// in Ollama's envelope, delete touches the models folder's files only, and both need the admin key
// where one is configured. A real download is test/e2e/api/ollama/pullAndDelete.test.ts's.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import {afterEach, beforeEach, describe, expect, it} from "vitest";
import {descriptor} from "../../support/fakeEngine.js";
import {createTestApp} from "../../support/testApp.js";

describe("POST /api/pull and DELETE /api/delete", () => {
    let modelsDir: string;
    beforeEach(async () => {
        modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-ollama-delete-"));
    });
    afterEach(async () => fs.rm(modelsDir, {recursive: true, force: true}));

    it("a name of Ollama's library, or no name, is a 400 in Ollama's envelope before anything is sent", async () => {
        const t = createTestApp();
        const library = await request(t.app).post("/api/pull").send({model: "llama3.2"}).expect(400);
        expect(library.body).toEqual({error: expect.stringContaining("hf.co/user/repo:Q4_K_M")});
        expect((await request(t.app).post("/api/pull").send({}).expect(400)).body).toEqual({error: expect.stringContaining("model")});
    });

    it("with an admin key configured, pull and delete need it: another key gets a 403", async () => {
        const t = createTestApp({apiKeys: ["user", "admin"], adminApiKeys: ["admin"]});
        const pull = await request(t.app).post("/api/pull").set("authorization", "Bearer user").send({model: "hf.co/a/b"}).expect(403);
        expect(pull.body).toEqual({error: expect.stringContaining("admin key")});
        await request(t.app).delete("/api/delete").set("authorization", "Bearer user").send({model: "tiny-chat"}).expect(403);
        await request(t.app).post("/api/pull").send({model: "hf.co/a/b"}).expect(401);
        // The admin key gets past the check to the name's own answer.
        await request(t.app).delete("/api/delete").set("authorization", "Bearer admin").send({model: "nope"}).expect(404);
    });

    it("delete removes every part of the model's files from the models folder, keeps its projector and other models, and a second delete is a 404", async () => {
        const files = ["big-00001-of-00002.gguf", "big-00002-of-00002.gguf", "mmproj-big.gguf", "other.gguf"];
        for (const file of files)
            await fs.writeFile(path.join(modelsDir, file), "GGUF");
        const t = createTestApp({modelsDir, descriptors: [descriptor("big"), descriptor("other")]});
        const deleted = await request(t.app).delete("/api/delete").send({model: "big:latest"});
        expect(deleted.body).toEqual({});
        expect(deleted.status).toBe(200);
        expect((await fs.readdir(modelsDir)).sort()).toEqual(["mmproj-big.gguf", "other.gguf"]);
        expect(t.catalogue.refreshes).toBeGreaterThan(0);
        await request(t.app).delete("/api/delete").send({model: "big"}).expect(404);
    });
});
