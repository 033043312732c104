import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";
import type {Page} from "playwright-core";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The page as `npm run build` makes it (dist/web), so these tests need no earlier build. */
export function buildPage(): void {
    execFileSync(process.execPath, ["scripts/buildWebPage.mjs"], {cwd: root, stdio: "ignore"});
}

/** docs/screenshots/<name>.png, only when asked (CHAT_PAGE_SCREENSHOTS=1): a test run leaves the checkout alone. */
export async function screenshot(page: Page, name: string): Promise<void> {
    if (process.env.CHAT_PAGE_SCREENSHOTS !== "1")
        return;
    await page.screenshot({path: `${root}docs/screenshots/${name}.png`});
}
