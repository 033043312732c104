// DNS rebinding on a LAN bind: a real server on 0.0.0.0 without a key refuses a request that names
// it by a name of someone else's (what a rebinding page's browser sends), and serves addresses.
import http from "node:http";
import {afterAll, beforeAll, expect, it} from "vitest";
import {buildTinyChatModel} from "../fixtures/gguf/tinyModels.js";
import {startTestServer, type TestServer} from "./support/testServer.js";

let open: TestServer;
let starred: TestServer;

beforeAll(async () => {
    const model = await buildTinyChatModel();
    open = await startTestServer({tiny: model}, {host: "0.0.0.0"});
    starred = await startTestServer({tiny: model}, {host: "0.0.0.0", allowedHosts: ["*"]});
});
afterAll(async () => {
    await open?.stop();
    await starred?.stop();
});

/** GET /v1/models through 127.0.0.1 with the given Host header (fetch will not set one). */
function modelsWithHost(server: TestServer, host: string): Promise<{status: number, body: string}> {
    const port = Number(new URL(server.url).port);
    return new Promise((resolve, reject) => {
        http.get({host: "127.0.0.1", port, path: "/v1/models", headers: {Host: host}}, (res) => {
            let body = "";
            res.on("data", (chunk: Buffer) => body += chunk.toString("utf8"));
            res.on("end", () => resolve({status: res.statusCode!, body}));
        }).on("error", reject);
    });
}

it("on 0.0.0.0 without a key, refuses a foreign Host with 403 and serves addresses and loopback names", async () => {
    const port = new URL(open.url).port;
    const refused = await modelsWithHost(open, `rebind.evil.example:${port}`);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({error: {code: "host_not_allowed", message: expect.stringContaining("--allowed-host")}});
    for (const host of [`192.168.1.20:${port}`, `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
        expect((await modelsWithHost(open, host)).status, host).toBe(200);
});

it("with --allowed-host '*', serves any name", async () => {
    expect((await modelsWithHost(starred, "rebind.evil.example")).status).toBe(200);
});
