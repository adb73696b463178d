// Headless Chromium with the network closed: a page of `base`'s origin may
// load from that origin (and data: URLs) only; every other request is
// aborted and recorded in `outside`, every script error in `errors`.
import { chromium } from "playwright-core";

export async function openOfflinePage(base) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  const outside = [];
  const errors = [];
  // One context: pages opened later (another tab) share its storage and its closed network.
  const context = await browser.newContext();
  const page = await context.newPage();
  const origin = new URL(base).origin;
  await context.route("**/*", (route) => {
    const target = route.request().url();
    if (target.startsWith(origin) || target.startsWith("data:")) return route.continue();
    outside.push(target);
    return route.abort();
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  context.on("page", (opened) => opened.on("pageerror", (error) => errors.push(String(error))));
  return { browser, page, outside, errors };
}
