// The key prompt in a real browser: a server started with a key asks for it once, says when a key
// is wrong, and keeps the right one in the browser across a reload.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {Browser, Page} from "playwright-core";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {chromiumPath, launchChromium, noChromiumReason} from "../support/browser.js";
import {startTestServer, type TestServer} from "../support/testServer.js";
import {buildPage, screenshot} from "./pageSupport.js";

describe.skipIf(chromiumPath == null)(`the chat page's key prompt${chromiumPath == null ? ` (skipped: ${noChromiumReason})` : ""}`, () => {
    let dir: string;
    let server: TestServer;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
        buildPage();
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-page-key-"));
        server = await startTestServer({"tiny-chat": await buildTinyChatModel(dir)}, {apiKeys: ["team-secret"]});
        browser = await launchChromium();
        page = await browser.newPage({viewport: {width: 1280, height: 800}, reducedMotion: "reduce"});
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("asks for the key, says a wrong one is wrong, and keeps the right one across a reload", async () => {
        await page.goto(server.url.replace(/\/v1$/, ""));
        const dialog = page.getByRole("dialog", {name: "This server needs an API key"});
        await dialog.waitFor();
        await page.getByRole("textbox", {name: "API key"}).fill("not-the-key");
        await page.getByRole("button", {name: "Connect"}).click();
        await page.getByText("The server refused that key").waitFor();
        await screenshot(page, "key-prompt-desktop");
        await page.setViewportSize({width: 390, height: 844});
        await screenshot(page, "key-prompt-phone");
        await page.setViewportSize({width: 1280, height: 800});

        await page.getByRole("textbox", {name: "API key"}).fill("team-secret");
        await page.getByRole("button", {name: "Connect"}).click();
        await dialog.waitFor({state: "detached"});
        await expect.poll(() => page.getByLabel("Model").inputValue()).toBe("tiny-chat");

        await page.reload();
        await expect.poll(() => page.getByLabel("Model").inputValue()).toBe("tiny-chat");
        expect(await dialog.count()).toBe(0);
        expect(await page.evaluate("localStorage.getItem(\"chatserve.apiKey\")")).toBe("team-secret");
    }, 60_000);
});
