// The chat page in a real browser (headless Chromium through playwright-core) against a real
// server on the tiny random-weight models: send and stream, stop, regenerate, reload, an image on
// the vision fixture, unload. Screenshots for the docs with CHAT_PAGE_SCREENSHOTS=1.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {Browser, Page} from "playwright-core";
import {afterAll, beforeAll, describe, expect, it} from "vitest";
import {buildTinyChatModel} from "../../fixtures/gguf/tinyModels.js";
import {buildTinyLlavaModel} from "../../fixtures/gguf/visionModels.js";
import {encodePng, gradient} from "../../fixtures/images.js";
import {chromiumPath, launchChromium, noChromiumReason} from "../support/browser.js";
import {startTestServer, type TestServer} from "../support/testServer.js";
import {buildPage, screenshot} from "./pageSupport.js";

describe.skipIf(chromiumPath == null)(`the chat page in Chromium${chromiumPath == null ? ` (skipped: ${noChromiumReason})` : ""}`, () => {
    let dir: string;
    let server: TestServer;
    let browser: Browser;
    let page: Page;
    let origin: string;
    const consoleErrors: string[] = [];

    beforeAll(async () => {
        buildPage();
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "chatserve-page-"));
        const llava = await buildTinyLlavaModel(dir);
        server = await startTestServer({"tiny-chat": await buildTinyChatModel(dir), "tiny-vision": llava.model, "mmproj-tiny-vision": llava.mmproj}, {ctxSize: 1024});
        origin = server.url.replace(/\/v1$/, "");
        browser = await launchChromium();
        page = await browser.newPage({viewport: {width: 1280, height: 800}, reducedMotion: "reduce"});
        // A CSP violation or a script error shows here: the page must run with none.
        page.on("console", (message) => { if (message.type() === "error") consoleErrors.push(message.text()); });
        page.on("pageerror", (error) => consoleErrors.push(error.message));
        await page.goto(origin);
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await server?.stop();
        await fs.rm(dir, {recursive: true, force: true});
    });

    const assistant = () => page.locator("article.message.assistant");

    async function chooseModel(id: string) {
        await page.getByLabel("Model").selectOption(id);
    }

    async function send(text: string) {
        await page.getByRole("textbox", {name: "Message", exact: true}).fill(text);
        await page.getByRole("textbox", {name: "Message", exact: true}).press("Enter");
    }

    it("sends a message and streams the reply into the page, with the server's usage figures", async () => {
        await chooseModel("tiny-chat");
        // A random-weight model may otherwise talk until the 1024-token context is full, and then
        // the next message in this conversation leaves no room for a reply (a 400). Temperature 0
        // (kept for the conversation's later turns): a sampled reply could be empty, or end before
        // the Stop button below is pressed; the greedy one is the same on every run.
        await page.getByRole("button", {name: "Settings"}).click();
        await page.getByLabel("Max tokens").fill("48");
        await page.getByLabel("Temperature").fill("0");
        await page.getByRole("button", {name: "Settings"}).click();
        await send("Hello there");
        await expect.poll(() => page.locator("article.message.user .body").first().textContent()).toBe("Hello there");
        // The reply ends with its stats line, written from the server's usage.
        await page.locator(".stats").first().waitFor({timeout: 60_000});
        expect((await assistant().first().locator(".body").textContent())!.length).toBeGreaterThan(0);
        expect(await page.locator(".stats").first().textContent()).toMatch(/\d+ tokens · context \d+%/);
        // The sidebar names it after its first message.
        expect(await page.locator(".conversation-list .open").first().textContent()).toBe("Hello there");
        await screenshot(page, "chat-desktop");
    }, 90_000);

    it("stops a long reply with the Stop button", async () => {
        await page.getByRole("button", {name: "Settings"}).click();
        await page.getByLabel("Max tokens").fill("900");
        await page.getByLabel("System prompt").fill("You are a storyteller.");
        await screenshot(page, "settings-desktop");
        await page.getByRole("button", {name: "Settings"}).click();
        await send("Tell me a long story");
        // Streaming: text shows while the reply is still running (the Stop button is still there).
        const stop = page.getByRole("button", {name: "Stop the reply"});
        await stop.waitFor();
        await assistant().last().locator(".body").filter({hasText: /\S/}).waitFor({timeout: 30_000});
        expect(await stop.isVisible()).toBe(true);
        await stop.click();
        await page.getByText("Stopped.").waitFor({timeout: 30_000});
        await page.getByRole("button", {name: "Send"}).waitFor();
    }, 90_000);

    it("regenerates the last reply in place", async () => {
        const before = await assistant().count();
        await page.getByRole("button", {name: "Regenerate reply"}).click();
        // The stopped reply goes, and a whole one takes its place.
        await page.getByText("Stopped.").waitFor({state: "detached"});
        await page.getByRole("button", {name: "Regenerate reply"}).waitFor({timeout: 60_000});
        expect(await assistant().count()).toBe(before);
        expect(await page.getByText("Stopped.").count()).toBe(0);
    }, 90_000);

    it("keeps the conversation across a reload (IndexedDB)", async () => {
        const messages = await page.locator("article.message").count();
        await page.reload();
        await page.locator(".conversation-list .open", {hasText: "Hello there"}).click();
        await expect.poll(() => page.locator("article.message").count()).toBe(messages);
    }, 60_000);

    it("sends an image to the vision model, and says why a text model refuses one", async (context) => {
        if (!server.vision.available)
            return context.skip(`this llama.cpp build has no vision: ${server.vision.reason}`);
        const image = path.join(dir, "gradient.png");
        await fs.writeFile(image, encodePng(128, 128, gradient(128, 128, 1)));
        await page.getByRole("button", {name: "New chat"}).click();
        await chooseModel("tiny-chat");
        await page.getByLabel("Attach files").setInputFiles(image);
        expect(await page.getByRole("alert").textContent()).toContain("does not read images");

        await chooseModel("tiny-vision");
        await page.getByLabel("Attach files").setInputFiles(image);
        await page.getByAltText("Image 1 to send").waitFor();
        await send("What is in this picture?");
        await page.locator(".stats").first().waitFor({timeout: 60_000});
        await page.getByAltText("Attached image 1").waitFor();
        expect(await page.locator("article.message.assistant .error").count()).toBe(0);
        await screenshot(page, "image-desktop");
    }, 120_000);

    it("puts an attached text file into the message, and refuses a file it cannot read", async () => {
        const notes = path.join(dir, "notes.md");
        await fs.writeFile(notes, "# Notes\nbuy milk\n");
        await page.getByLabel("Attach files").setInputFiles(notes);
        await expect.poll(() => page.getByRole("textbox", {name: "Message", exact: true}).inputValue()).toBe("notes.md:\n```\n# Notes\nbuy milk\n```\n");
        const binary = path.join(dir, "data.bin");
        await fs.writeFile(binary, Buffer.from([0, 1, 2]));
        await page.getByLabel("Attach files").setInputFiles(binary);
        expect(await page.getByRole("alert").textContent()).toContain("Only images and text files can be attached (not data.bin)");
        await page.getByRole("textbox", {name: "Message", exact: true}).fill("");
    });

    it("shows how full the context is in the top bar", async () => {
        expect(await page.getByRole("meter").getAttribute("aria-label")).toMatch(/^Context \d+% full$/);
    });

    it("lists the models with memory and context, and unloads one", async () => {
        await page.getByRole("button", {name: "Models", exact: true}).click();
        const unload = page.getByRole("button", {name: "Unload tiny-chat"});
        await unload.waitFor();
        await screenshot(page, "models-desktop");
        await unload.click();
        await page.getByRole("button", {name: "Load tiny-chat"}).waitFor({timeout: 30_000});
        const listed = await (await fetch(`${server.url}/models/tiny-chat`)).json() as {loaded: boolean};
        expect(listed.loaded).toBe(false);
    }, 60_000);

    it("fits a phone-sized screen: the conversations open from the menu", async () => {
        await page.setViewportSize({width: 390, height: 844});
        await page.getByRole("button", {name: "← Chat"}).click();
        await page.getByRole("button", {name: "Conversations"}).click();
        await page.locator(".conversation-list .open", {hasText: "Hello there"}).click();
        await page.locator("article.message").first().waitFor();
        const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") as number;
        expect(overflow).toBeLessThanOrEqual(0);
        await screenshot(page, "chat-phone");
        await page.getByRole("button", {name: "Conversations"}).click();
        await screenshot(page, "conversations-phone");
        // The uncovered strip beside the open list closes it, as on a phone.
        await page.getByRole("button", {name: "Close conversations"}).click({position: {x: 370, y: 400}});
        await page.emulateMedia({colorScheme: "dark"});
        await screenshot(page, "chat-phone-dark");
        await page.setViewportSize({width: 1280, height: 800});
        await screenshot(page, "chat-desktop-dark");
        await page.emulateMedia({colorScheme: "light"});
    }, 60_000);

    it("ran all of the above with no script error and nothing refused by its Content-Security-Policy", () => {
        expect(consoleErrors).toEqual([]);
    });
});
