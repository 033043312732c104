import {existsSync} from "node:fs";
import type {Browser} from "playwright-core";

/**
 * Headless Chromium for the chat page's tests: Debian's `chromium` package (browser downloads are
 * not reachable here), driven by playwright-core. CHROMIUM_PATH overrides where it is looked for.
 * Null with the reason when there is none: the tests skip saying so (.ci/run installs it).
 */
const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    .filter((file): file is string => file != null && file !== "");

export const chromiumPath: string | null = candidates.find((file) => existsSync(file)) ?? null;
export const noChromiumReason = `no Chromium at ${candidates.join(", ")} (apt-get install chromium, or set CHROMIUM_PATH)`;

export async function launchChromium(): Promise<Browser> {
    const {chromium} = await import("playwright-core");
    // No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
    return await chromium.launch({executablePath: chromiumPath!, headless: true, args: ["--no-sandbox", "--disable-gpu"]});
}
