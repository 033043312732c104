// Roles on a real server: with an admin key, a user key cannot pin or unload a model; the admin can.
import OpenAI from "openai";
import {afterAll, beforeAll, expect, it} from "vitest";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

let server: TestServer;

beforeAll(async () => {
    server = await startTestServer({tiny: await buildTinyChatModel()}, {apiKeys: ["sk-user"], adminApiKeys: ["sk-admin"]});
});
afterAll(async () => server?.stop());

it("a user key's keep_alive -1 and unload are 403s; the admin key's are done; chat works for both", async () => {
    const ask = (key: string, extra: Record<string, unknown> = {}) => server.client(key).chat.completions.create({
        model: "tiny", max_tokens: 2, messages: [{role: "user", content: "Hi"}], ...extra
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect((await ask("sk-user")).choices[0]!.message.role).toBe("assistant");
    const pinned = await ask("sk-user", {keep_alive: -1}).catch((error: unknown) => error);
    expect(pinned).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(pinned).toMatchObject({status: 403, code: "admin_key_required", param: "keep_alive"});
    const unload = (key: string) => fetch(`${server.url}/models/tiny/unload`, {method: "POST", headers: {Authorization: `Bearer ${key}`}});
    expect((await unload("sk-user")).status).toBe(403);

    await ask("sk-admin", {keep_alive: -1});
    const listed = await (await fetch(`${server.url}/models/tiny`, {headers: {Authorization: "Bearer sk-user"}})).json() as {keep_alive: number};
    expect(listed.keep_alive).toBe(-1);
    expect((await unload("sk-admin")).status).toBe(200);
});
