// The chat page's conversations in a real browser: import a file, Markdown with highlighted code
// and a copy button (and nothing a model could inject), search, rename, export, delete.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {Browser, Page} from "playwright-core";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {chromiumPath, launchChromium, noChromiumReason} from "../support/browser.js";
import {startTestServer, type TestServer} from "../support/testServer.js";
import {buildPage, screenshot} from "./pageSupport.js";

const reply = [
    "Here is **Fibonacci** in Python:",
    "",
    "```python",
    "def fib(n):",
    "    # the naive way",
    "    return n if n < 2 else fib(n - 1) + fib(n - 2)",
    "```",
    "",
    "| n | fib(n) |",
    "|---|--------|",
    "| 10 | 55 |",
    "",
    "<img src=x onerror=\"document.title='pwned'\"> and <script>document.title='pwned'</script>"
].join("\n");

const exportFile = {
    format: "chatserve-conversations",
    version: 1,
    conversations: [
        {title: "Fibonacci", model: "tiny-chat", system: "", updatedAt: 2, messages: [
            {role: "user", content: "Write fib in Python"},
            {role: "assistant", content: reply, reasoning: "The user wants code; a short recursive one will do."}
        ]},
        {title: "Groceries", model: "tiny-chat", updatedAt: 1, messages: [{role: "user", content: "milk and eggs"}]}
    ]
};

describe.skipIf(chromiumPath == null)(`the chat page's conversations${chromiumPath == null ? ` (skipped: ${noChromiumReason})` : ""}`, () => {
    let dir: string;
    let server: TestServer;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
        buildPage();
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-page-conv-"));
        server = await startTestServer({"tiny-chat": await buildTinyChatModel(dir)});
        browser = await launchChromium();
        page = await browser.newPage({viewport: {width: 1280, height: 800}, reducedMotion: "reduce", acceptDownloads: true});
        page.on("dialog", (dialog) => void dialog.accept());
        await page.goto(server.url.replace(/\/v1$/, ""));
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    const listed = () => page.locator(".conversation-list .open").allTextContents();

    it("imports a file and shows its Markdown: highlighted code with a copy button, reasoning folded, nothing injected", async () => {
        const file = path.join(dir, "chats.json");
        await fs.writeFile(file, JSON.stringify(exportFile));
        await page.getByLabel("Import conversations file").setInputFiles(file);
        await expect.poll(listed).toEqual(["Fibonacci", "Groceries"]);
        await page.locator(".conversation-list .open", {hasText: "Fibonacci"}).click();
        const answer = page.locator("article.message.assistant");
        await answer.locator(".code .hljs-keyword").first().waitFor();
        expect(await answer.getByRole("button", {name: "Copy code"}).count()).toBe(1);
        expect(await answer.locator("table td").allTextContents()).toEqual(["10", "55"]);
        expect(await answer.locator("details.reasoning").getAttribute("open")).toBeNull();
        expect(await answer.locator("script, [onerror]").count()).toBe(0);
        expect(await page.title()).toBe("chatserve");
        await screenshot(page, "markdown-desktop");
    });

    it("searches, renames, exports and deletes", async () => {
        await page.getByLabel("Search conversations").fill("milk");
        await expect.poll(listed).toEqual(["Groceries"]);
        await page.getByLabel("Search conversations").fill("");

        await page.getByRole("button", {name: "Rename Groceries"}).click();
        await page.getByLabel("New title").fill("Shopping");
        await page.getByLabel("New title").press("Enter");
        await expect.poll(listed).toContain("Shopping");

        const download = page.waitForEvent("download");
        await page.getByRole("button", {name: "Export"}).click();
        const exported = JSON.parse(await fs.readFile((await (await download).path())!, "utf8")) as typeof exportFile;
        expect(exported.conversations.map((conversation) => conversation.title).sort()).toEqual(["Fibonacci", "Shopping"]);

        await page.getByRole("button", {name: "Delete Shopping"}).click();
        await expect.poll(listed).toEqual(["Fibonacci"]);
        await page.reload();
        await expect.poll(listed).toEqual(["Fibonacci"]);
    });
});
