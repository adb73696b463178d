// Opens GraphiQL in headless Chromium, runs the query given in the URL and
// prints what the result pane shows, plus every request that tried to leave
// the machine (there must be none: the page has to work offline).
// usage: node graphiql-check.mjs <url> <text expected in the result>
import { openOfflinePage } from "./offline-page.mjs";

const [url, expected] = process.argv.slice(2);
const { browser, page, outside, errors } = await openOfflinePage(url);
try {
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
