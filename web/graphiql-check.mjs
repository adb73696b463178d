// Opens GraphiQL in headless Chromium, runs the query given in the URL and
// prints what the result pane shows, plus every request that tried to leave
// the machine (there must be none: the page has to work offline).
// usage: node graphiql-check.mjs <url> <text expected in the result>
import { chromium } from "playwright-core";

const [url, expected] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const outside = [];
const errors = [];
try {
  const page = await browser.newPage();
  const origin = new URL(url).origin;
  await page.route("**/*", (route) => {
    const target = route.request().url();
    if (target.startsWith(origin) || target.startsWith("data:")) return route.continue();
    outside.push(target);
    return route.abort();
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(url, { waitUntil: "networkidle" });
  await page.locator(".graphiql-execute-button").click();
  const result = page.locator(".result-window");
  await result.getByText(expected, { exact: false }).first().waitFor({ timeout: 20000 });
  const text = await result.innerText();
  console.log(JSON.stringify({ ok: true, text, outside, errors }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error), outside, errors }));
} finally {
  await browser.close();
}
