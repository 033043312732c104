import http from "node:http";
import type {AddressInfo} from "node:net";
import request from "supertest";
import {afterEach, describe, expect, it} from "vitest";
import {Drain} from "../../src/http/drain.js";
import {chatRequest, createTestApp, errorOf, MODEL} from "./support/testApp.js";

/** The app on a real server (the drain counts the server's requests), with a reply held busy until `finish()`. */
async function drainingServer() {
    const drain = new Drain();
    const t = createTestApp({drain});
    const server = http.createServer(t.app);
    drain.track(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    let finish!: () => void;
    t.model.script = {pieces: ["Hel", "lo"], busyUntil: new Promise<void>((resolve) => finish = resolve)};
    return {drain, t, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, finish: () => finish()};
}

const servers: http.Server[] = [];
afterEach(async () => {
    for (const server of servers.splice(0)) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
    }
});

describe("the drain at shutdown", () => {
    it("lets a reply under way finish, answers what arrives meanwhile with a 503 and Retry-After, and ends once the reply has", async () => {
        const {drain, t, url, finish} = await drainingServer();
        const inFlight = fetch(`${url}/v1/chat/completions`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(chatRequest())});
        while (t.model.generations.length === 0)
            await new Promise((resolve) => setTimeout(resolve, 5));
        let drained = false;
        const settled = drain.begin().then(() => drained = true);

        const ready = await fetch(`${url}/health/ready`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({reason: "shutting_down"});
        // Liveness: the process is healthy, only leaving.
        expect((await fetch(`${url}/health`)).status).toBe(200);
        const refused = await fetch(`${url}/v1/chat/completions`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(chatRequest())});
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("5");
        expect(refused.headers.get("connection")).toBe("close");
        expect(errorOf(await refused.json())).toMatchObject({type: "server_error", code: "shutting_down"});
        expect(drained).toBe(false);

        finish();
        const reply = await inFlight;
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as {choices: Array<{message: {content: string}}>}).choices[0]!.message.content).toBe("Hello");
        await settled;
        expect(drained).toBe(true);
    });

    it("answers refusals in each API's own envelope, as 503s a balancer resends (not Anthropic's 529, which nginx cannot)", async () => {
        const drain = new Drain();
        const {app} = createTestApp({drain});
        void drain.begin();
        const anthropic = await request(app).post("/v1/messages").send({model: MODEL, max_tokens: 8, messages: [{role: "user", content: "Hi"}]});
        expect(anthropic.status).toBe(503);
        expect(anthropic.headers["retry-after"]).toBe("5");
        expect(anthropic.body).toMatchObject({type: "error", error: {type: "api_error"}});
        const ollama = await request(app).post("/api/chat").send({model: MODEL, messages: [{role: "user", content: "Hi"}]});
        expect(ollama.status).toBe(503);
        expect(ollama.body).toEqual({error: expect.stringContaining("shutting down")});
    });

    it("ends at once when nothing is under way", async () => {
        const {drain} = await drainingServer();
        await drain.begin();
        expect(drain.draining).toBe(true);
    });
});
