// A pull from the chat page's models panel, in a real browser, from a local mirror of the hub
// (nothing leaves the machine): the progress shows, and the pulled model joins the list.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {Browser, Page} from "playwright-core";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {downloadableModel} from "../../fixtures/gguf/downloadableModels.js";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {chromiumPath, launchChromium, noChromiumReason} from "../support/browser.js";
import {HubMirror} from "../support/hubMirror.js";
import {startTestServer, type TestServer} from "../support/testServer.js";
import {buildPage, screenshot} from "./pageSupport.js";

describe.skipIf(chromiumPath == null)(`the chat page's pull${chromiumPath == null ? ` (skipped: ${noChromiumReason})` : ""}`, () => {
    let dir: string;
    let mirror: HubMirror;
    let server: TestServer;
    let browser: Browser;
    let page: Page;
    const hubEndpoint = process.env.HF_ENDPOINT;

    beforeAll(async () => {
        buildPage();
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-page-pull-"));
        mirror = await HubMirror.start([{id: "tester/Tiny-GGUF", files: {"tiny-Q4_K_M.gguf": downloadableModel({bytes: 400_000, fileType: 15, seed: 3})}}]);
        // The server reads the hub's address from its environment when a pull starts (this process's).
        process.env.HF_ENDPOINT = mirror.url;
        server = await startTestServer({"tiny-chat": await buildTinyChatModel(dir)});
        browser = await launchChromium();
        page = await browser.newPage({viewport: {width: 1280, height: 800}, reducedMotion: "reduce"});
        await page.goto(server.url.replace(/\/v1$/, ""));
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await server?.stop();
        await mirror?.close();
        if (hubEndpoint == null)
            delete process.env.HF_ENDPOINT;
        else
            process.env.HF_ENDPOINT = hubEndpoint;
        await fs.rm(dir, {recursive: true, force: true});
    });

    it("pulls a model named as Ollama names it, and lists it when done", async () => {
        await page.getByRole("button", {name: "Models", exact: true}).click();
        await page.getByRole("button", {name: "Unload tiny-chat"}).or(page.getByRole("button", {name: "Load tiny-chat"})).waitFor();
        const rows = await page.locator(".models-panel tbody tr").count();
        await page.getByLabel("Pull a model from Hugging Face").fill("hf.co/tester/Tiny-GGUF:Q4_K_M");
        await page.getByRole("button", {name: "Pull", exact: true}).click();
        await expect.poll(() => page.locator(".models-panel tbody tr").count(), {timeout: 30_000}).toBe(rows + 1);
        expect(await page.locator(".models-panel .error").count()).toBe(0);
        expect(await page.locator(".models-panel tbody").textContent()).toMatch(/Tiny/i);
    }, 60_000);

    it("says why a pull fails", async () => {
        await page.getByLabel("Pull a model from Hugging Face").fill("hf.co/tester/Missing-GGUF:Q4_K_M");
        await page.getByRole("button", {name: "Pull", exact: true}).click();
        await page.getByRole("alert").filter({hasText: /^Pull: /}).waitFor({timeout: 30_000});
        await screenshot(page, "pull-error-desktop");
    }, 60_000);
});
