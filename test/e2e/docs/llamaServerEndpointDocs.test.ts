import {existsSync, readFileSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyRerankerModel} from "../../fixtures/gguf/rerankerModel.js";
import {sharedModels} from "../support/sharedModels.js";
import {startTestServer, type TestServer} from "../support/testServer.js";

/**
 * Every curl example of the rerank and tokens pages (TEI's request included) (and the README's section on them) runs against
 * a real server, the model names they use standing for a tiny reranker and the shared Qwen2.5 model
 * (its vocabulary is Qwen2.5's, so the documented token ids hold); the answers the pages quote are checked.
 */
const pages = ["docs/api/rerank.md", "docs/api/tokens.md", "README.md"];
const root = fileURLToPath(new URL("../../../", import.meta.url));

type Example = {page: string, path: string, body: Record<string, unknown>};

/** `curl http://127.0.0.1:8080/<path> … -d '<json>'` in the pages' sh blocks. */
function examples(): Example[] {
    const found: Example[] = [];
    for (const page of pages) {
        const text = readFileSync(`${root}${page}`, "utf8");
        for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g))
            for (const call of block[1]!.matchAll(/curl http:\/\/127\.0\.0\.1:8080(\/[\w/.-]*)[\s\S]*?-d '([\s\S]*?)'/g)) {
                const path = call[1]!;
                if (["/v1/rerank", "/rerank", "/tokenize", "/detokenize", "/apply-template", "/v1/chat/completions/input_tokens"].includes(path))
                    found.push({page, path, body: JSON.parse(call[2]!)});
            }
    }
    return found;
}

describe.runIf(existsSync(sharedModels.qwenTools))("the rerank and tokens pages' curl examples", () => {
    let server: TestServer;
    const post = async (path: string, body: unknown) => {
        const res = await fetch(`${server.url.replace(/\/v1$/, "")}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        return {status: res.status, body: await res.json() as any};
    };

    beforeAll(async () => {
        server = await startTestServer({
            "bge-reranker-v2-m3-q8_0": await buildTinyRerankerModel(),
            "qwen2.5-0.5b-instruct-q8_0": sharedModels.qwenTools
        }, {ctxSize: 2048});
    });
    afterAll(async () => server?.stop());

    it("finds the examples: each endpoint has one on its page", () => {
        const paths = new Set(examples().filter((example) => example.page !== "README.md").map((example) => example.path));
        expect([...paths].sort()).toEqual(["/apply-template", "/detokenize", "/rerank", "/tokenize", "/v1/chat/completions/input_tokens", "/v1/rerank"]);
    });

    it("answers each with 200 and the shape the page describes", async () => {
        for (const {page, path, body} of examples()) {
            const {status, body: answer} = await post(path, body);
            expect(status, `${page} ${path}`).toBe(200);
            if (path === "/v1/rerank") {
                expect(answer.results, page).toHaveLength(body.top_n as number);
                expect(answer.results[0].document !== undefined, page).toBe(body.return_documents === true);
            }
            if (path === "/rerank") {
                // TEI's request, without a model: the server's one reranker answers, in TEI's form.
                const texts = body.texts as string[];
                expect(answer, page).toHaveLength(texts.length);
                expect(answer.map((result: {index: number, text: string}) => result.text), page).toEqual(answer.map((result: {index: number}) => texts[result.index]));
                expect(typeof answer[0].score, page).toBe("number");
            }
        }
    });

    it("gives the answers the tokens page quotes", async () => {
        const [tokenize, detokenize, , count] = examples().filter((example) => example.page === "docs/api/tokens.md");
        const ids = (await post(tokenize!.path, tokenize!.body)).body.tokens.map((token: {id: number}) => token.id);
        expect(ids).toEqual([151644, 872, 198, 13048, 11162, 99, 247]);
        expect((await post(detokenize!.path, detokenize!.body)).body).toEqual({content: "<|im_start|>user\nHi"});
        expect((await post(count!.path, count!.body)).body).toEqual({object: "response.input_tokens", input_tokens: 33});
    });
});
