import request from "supertest";
import {describe, expect, it} from "vitest";
import {createTestApp, errorOf} from "../../support/testApp.js";

// The double's vocabulary: a token per character code (below 256), 1 and 2 around a text with add_special, codes from 128 as half characters.
describe("POST /tokenize", () => {
    it("answers llama-server's shape: ids, special tokens only when asked, a mixed list of texts and ids", async () => {
        const {app} = createTestApp();
        const plain = await request(app).post("/tokenize").send({model: "tiny-chat", content: "Hi"});
        expect(plain.status).toBe(200);
        expect(plain.body).toEqual({tokens: [72, 105]});

        const special = await request(app).post("/tokenize").send({model: "tiny-chat", content: "Hi", add_special: true});
        expect(special.body).toEqual({tokens: [1, 72, 105, 2]});

        const mixed = await request(app).post("/tokenize").send({model: "tiny-chat", content: ["A", 5, "B"], add_special: true});
        expect(mixed.body).toEqual({tokens: [1, 65, 2, 5, 66]});
    });

    it("gives each token's piece with with_pieces: a string, or its bytes where they are not whole UTF-8", async () => {
        const {app} = createTestApp();
        const res = await request(app).post("/tokenize").send({model: "tiny-chat", content: ["a", 200], with_pieces: true});
        expect(res.status).toBe(200);
        expect(res.body).toEqual({tokens: [{id: 97, piece: "a"}, {id: 200, piece: [200]}]});
    });

    it("serves any model's vocabulary, an embedding model's too", async () => {
        const {app} = createTestApp();
        const res = await request(app).post("/tokenize").send({model: "embedder", content: "x"});
        expect(res.status).toBe(200);
        expect(res.body.tokens).toEqual([120]);
    });

    it("refuses bad input with a 400 naming the field, and an unknown model with a 404", async () => {
        const {app} = createTestApp();
        const cases: Array<[Record<string, unknown>, string]> = [
            [{model: "tiny-chat"}, "content"],
            [{model: "tiny-chat", content: 5}, "content"],
            [{model: "tiny-chat", content: ["ok", -1]}, "content[1]"],
            [{model: "tiny-chat", content: ["ok", 1.5]}, "content[1]"],
            [{model: "tiny-chat", content: ["ok", 999]}, "content[1]"],
            [{model: "tiny-chat", content: "x", add_special: "yes"}, "add_special"],
            [{content: "x"}, "model"]
        ];
        for (const [body, param] of cases) {
            const res = await request(app).post("/tokenize").send(body);
            expect(res.status, JSON.stringify(body)).toBe(400);
            expect(errorOf(res.body).param).toBe(param);
        }
        expect((await request(app).post("/tokenize").send({model: "nope", content: "x"})).status).toBe(404);
    });
});

describe("POST /detokenize", () => {
    it("answers {content}, and refuses ids outside the vocabulary or not ids at all", async () => {
        const {app} = createTestApp();
        const res = await request(app).post("/detokenize").send({model: "tiny-chat", tokens: [72, 105]});
        expect(res.status).toBe(200);
        expect(res.body).toEqual({content: "Hi"});

        for (const tokens of [[72, 4096], [72, "i"], "Hi"]) {
            const bad = await request(app).post("/detokenize").send({model: "tiny-chat", tokens});
            expect(bad.status, JSON.stringify(tokens)).toBe(400);
            expect(errorOf(bad.body).param).toMatch(/^tokens/);
        }
    });
});

describe("the tokenizer's paths", () => {
    it("take the API key, as /v1 does", async () => {
        const {app} = createTestApp({apiKeys: ["secret"]});
        for (const [path, body] of [["/tokenize", {model: "tiny-chat", content: "x"}], ["/detokenize", {model: "tiny-chat", tokens: [1]}]] as const) {
            expect((await request(app).post(path).send(body)).status, path).toBe(401);
            expect((await request(app).post(path).set("Authorization", "Bearer secret").send(body)).status, path).toBe(200);
        }
    });
});
